import { createHmac } from 'node:crypto';

/**
 * The `Workspace-Signature` header of a delivery, Stripe's scheme: `t=<unix seconds>,v1=<hex>`,
 * where the hex is HMAC-SHA256 over `<t>.<raw body>` with the endpoint's secret. While a rotated-out
 * secret is still valid, a second `v1=` signed with it follows, so receivers holding either pass.
 * The timestamp is inside the signed text: a captured delivery cannot be replayed later with a new one.
 */
export function signPayload(secrets: string | readonly string[], body: string, t: number): string {
  const signed = `${t}.${body}`;
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${t}`, ...list.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}
