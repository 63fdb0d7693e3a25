import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent. `production`: https only, and never to an address that is private,
 * loopback, link-local or otherwise not public (no server-side request forgery into the
 * deployment's own network); the default. `development` (NODE_ENV=development or test, asked for
 * explicitly): https anywhere, or http to a loopback host.
 */
export type WebhookUrlPolicy = 'production' | 'development';

/** The production policy unless NODE_ENV explicitly asks for a development or test deployment. */
export function webhookUrlPolicyFor(nodeEnv: string | undefined): WebhookUrlPolicy {
  return nodeEnv === 'development' || nodeEnv === 'test' ? 'development' : 'production';
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `url` cannot be a webhook endpoint's address under `policy` (without resolving it), or undefined. */
export function webhookUrlProblem(url: string, policy: WebhookUrlPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (parsed.hash) return 'must not have a #fragment';
  if (parsed.protocol === 'https:') {
    if (policy === 'production' && isLiteralAddress(parsed.hostname) && !isPublicAddress(unbracket(parsed.hostname))) {
      return 'must not point at a private, loopback or link-local address';
    }
    return undefined;
  }
  if (parsed.protocol === 'http:') {
    if (policy === 'development' && LOOPBACK_HOSTS.has(parsed.hostname)) return undefined;
    return policy === 'production' ? 'must be an https:// URL' : 'must be https://, or http:// to localhost (development only)';
  }
  return 'must be an https:// URL';
}

/** IPv6's global unicast block; everything outside it (and the special blocks inside it) is never a public host. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Only ordinary public unicast addresses. An IPv4-mapped address (`::ffff:a.b.c.d`) is what the
 * kernel connects to as IPv4, so it is judged as that IPv4 address. Every other IPv6 form that
 * embeds an IPv4 address is refused whole, whatever it embeds: IPv4-compatible `::a.b.c.d`
 * (`::/96`, deprecated and outside 2000::/3), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4
 * (`2002::/16`) and Teredo (`2001::/32`) reach whatever a translator or relay decides, which
 * this service cannot see. So are the other IANA special-purpose blocks ipaddr.js knows.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/**
 * A DNS lookup for the delivery's own connection that refuses non-public addresses under the
 * production policy: the address checked is the address connected to, so a name that resolves
 * to a public address when the endpoint is saved and to 10.0.0.1 later (DNS rebinding) is refused.
 */
export function guardedLookup(policy: WebhookUrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const allowed = policy === 'development' ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to private, loopback or link-local addresses`), { code: 'EADDRNOTPUBLIC' });
        return callback(refused, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

function isLiteralAddress(hostname: string): boolean {
  return ipaddr.isValid(unbracket(hostname));
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Under the production policy, why `url`'s host cannot be reached safely: it does not resolve, or
 * one of its addresses is not public. Checked when an endpoint is saved; `guardedLookup` checks
 * again at every delivery.
 */
export async function webhookHostProblem(url: string, policy: WebhookUrlPolicy): Promise<string | undefined> {
  if (policy !== 'production') return undefined;
  const hostname = unbracket(new URL(url).hostname);
  if (isLiteralAddress(hostname)) return isPublicAddress(hostname) ? undefined : 'must not point at a private, loopback or link-local address';
  const addresses = await new Promise<LookupAddress[] | undefined>((resolve) => {
    dnsLookup(hostname, { all: true }, (err, found) => resolve(err ? undefined : found));
  });
  if (!addresses || addresses.length === 0) return `host ${hostname} does not resolve`;
  if (addresses.some((a) => !isPublicAddress(a.address))) return `host ${hostname} resolves to a private, loopback or link-local address`;
  return undefined;
}
