export interface VerifyWebhookSignatureOptions {
  /** The request body exactly as received (raw text, before any JSON parsing). */
  payload: string;
  /** The `Workspace-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
  header: string;
  /** The endpoint's signing secret (`whsec_...`). */
  secret: string;
  /** How old (or how far in the future) the signed timestamp may be; 5 minutes by default. */
  toleranceSeconds?: number;
  /** The current time (tests); defaults to now. */
  now?: Date;
}

/**
 * Checks a webhook delivery's `Workspace-Signature` before its body is trusted: answers true when
 * some `v1` is the HMAC-SHA256 of `<t>.<payload>` under `secret` and `t` is within the tolerance
 * (so a captured delivery cannot be replayed later). During a secret rotation the header carries
 * one `v1` per valid secret; any match passes. Uses Web Crypto, so it runs in Node 20+, Deno, Bun,
 * workers and browsers; digests are compared in constant time.
 *
 * ```ts
 * const ok = await verifyWebhookSignature({ payload: rawBody, header: req.headers['workspace-signature'], secret });
 * if (!ok) return res.status(400).end();
 * ```
 */
export async function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): Promise<boolean> {
  const { payload, header, secret, toleranceSeconds = 300, now = new Date() } = options;
  const parsed = parseHeader(header);
  if (!parsed) return false;
  if (Math.abs(Math.floor(now.getTime() / 1000) - parsed.t) > toleranceSeconds) return false;
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${parsed.t}.${payload}`)));
  let matched = false;
  // Every candidate is compared in full, so the time taken says nothing about which bytes matched.
  for (const candidate of parsed.signatures) matched = constantTimeEqual(expected, candidate) || matched;
  return matched;
}

function parseHeader(header: string): { t: number; signatures: Uint8Array[] } | undefined {
  let t: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === 't' && value && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'v1' && value && /^[0-9a-f]{64}$/i.test(value)) signatures.push(fromHex(value));
  }
  return t === undefined || signatures.length === 0 ? undefined : { t, signatures };
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
