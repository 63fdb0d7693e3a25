import { isIPv4, isIPv6 } from 'node:net';

/**
 * What failed authentications are counted against: the IPv4 address (an IPv4-mapped IPv6 address
 * counts as its IPv4 one), or the /64 prefix of an IPv6 address, since one subscriber usually
 * holds a whole /64 and could otherwise guess from 2^64 addresses. Requests whose address is
 * unknown share one budget.
 */
export function addressBucketOf(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.split('%')[0]!; // a zone id (fe80::1%eth0) names an interface, not a host
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').flatMap(embeddedIpv4AsGroups));
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array.from({ length: 8 - before.length - after.length }, () => '0');
  return [...before, ...zeros, ...after].map((group) => parseInt(group, 16).toString(16));
}

/** `1.2.3.4` at the end of an IPv6 address is two groups. */
function embeddedIpv4AsGroups(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
