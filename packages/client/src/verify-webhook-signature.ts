export interface VerifyWebhookSignatureOptions {
  /** The request body exactly as received: its raw text, or its bytes (a Buffer), before any JSON parsing. */
  payload: string | Uint8Array;
  /** The `Workspace-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
  header: string;
  /** The endpoint's signing secret (`whsec_...`). */
  secret: string;
  /** How old (or how far in the future) the signed timestamp may be: a finite number of seconds, 0 or more; 5 minutes by default. */
  toleranceSeconds?: number;
  /** The current time (tests); defaults to now. */
  now?: Date;
}

/** Why a signature was refused. */
export type SignatureProblem = 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

/**
 * Checks a webhook delivery's `Workspace-Signature` before its body is trusted: answers true when
 * some `v1` is the HMAC-SHA256 of `<t>.<payload>` under `secret` and `t` is within the tolerance
 * (so a captured delivery cannot be replayed later). During a secret rotation the header carries
 * one `v1` per valid secret; any match passes. Uses Web Crypto, so it runs in Node 20+, Deno, Bun,
 * workers and browsers; digests are compared in constant time.
 *
 * It fails closed: options that would make the check meaningless (an empty secret, a tolerance
 * that is not a finite number of seconds >= 0, an invalid `now`) throw a TypeError rather than
 * answer either way, so a misconfiguration shows at the first delivery instead of letting any through.
 *
 * ```ts
 * const ok = await verifyWebhookSignature({ payload: rawBody, header: req.headers['workspace-signature'], secret });
 * if (!ok) return res.status(400).end();
 * ```
 */
export async function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): Promise<boolean> {
  return (await signatureProblem(options)) === undefined;
}

/** verifyWebhookSignature's check, answering why it failed (undefined when it passed). */
export async function signatureProblem(options: VerifyWebhookSignatureOptions): Promise<SignatureProblem | undefined> {
  const { payload, header, secret, toleranceSeconds = 300, now = new Date() } = options;
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhookSignature: `secret` must be the endpoint\'s signing secret (a non-empty string)');
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError(`verifyWebhookSignature: \`toleranceSeconds\` must be a finite number of seconds, 0 or more (got ${String(toleranceSeconds)})`);
  }
  // Duck-typed, so a Date of another realm passes; an Invalid Date does not.
  const nowMs = typeof (now as Partial<Date> | null)?.getTime === 'function' ? now.getTime() : NaN;
  if (!Number.isFinite(nowMs)) throw new TypeError('verifyWebhookSignature: `now` must be a valid Date');
  // ArrayBuffer.isView, not instanceof: a Buffer may come from another realm (jest's, an iframe's).
  if (typeof payload !== 'string' && !ArrayBuffer.isView(payload)) throw new TypeError('verifyWebhookSignature: `payload` must be the raw body (a string or bytes)');
  if (typeof header !== 'string' || header.trim() === '') return 'missing_header';
  const parsed = parseHeader(header);
  if (!parsed) return 'malformed_header';
  if (Math.abs(Math.floor(nowMs / 1000) - parsed.t) > toleranceSeconds) return 'timestamp_out_of_tolerance';
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedBytes(parsed.t, payload)));
  let matched = false;
  // Every candidate is compared in full, so the time taken says nothing about which bytes matched.
  for (const candidate of parsed.signatures) matched = constantTimeEqual(expected, candidate) || matched;
  return matched ? undefined : 'no_matching_signature';
}

/** `<t>.` and the payload's bytes as received (bytes are signed as they are, never decoded and re-encoded). */
function signedBytes(t: number, payload: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const body = typeof payload === 'string' ? encoder.encode(payload) : new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  const prefix = encoder.encode(`${t}.`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
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
