import { reviveEvent, type WorkspaceEvent } from './events.js';
import { signatureProblem, type SignatureProblem } from './verify-webhook-signature.js';

export interface ConstructWebhookEventOptions {
  /** How old (or how far in the future) the signed timestamp may be, in seconds; 300 by default. */
  toleranceSeconds?: number;
  /** The current time (tests); defaults to now. */
  now?: Date;
}

const MESSAGES: Record<SignatureProblem | 'invalid_payload', string> = {
  missing_header: 'No Workspace-Signature header: the request is not a signed delivery',
  malformed_header: 'The Workspace-Signature header is not t=<seconds>,v1=<hex>',
  timestamp_out_of_tolerance: "The signature's timestamp is outside the tolerance (a replayed or delayed delivery, or this server's clock is off)",
  no_matching_signature: "No signature matches the body under this secret (a wrong secret, or a body changed since it was signed: pass the raw body, before any JSON parsing)",
  invalid_payload: 'The signed body is not a JSON event',
};

/** A webhook delivery that must not be trusted; answer it with a 400. `reason` says why. */
export class WebhookSignatureError extends Error {
  readonly reason: SignatureProblem | 'invalid_payload';

  constructor(reason: SignatureProblem | 'invalid_payload', options?: { cause?: unknown }) {
    super(MESSAGES[reason], options);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

/**
 * A webhook delivery's event, once its signature is verified (as Stripe's
 * `webhooks.constructEvent`): `rawBody` exactly as received (text or bytes, before any JSON
 * parsing), the `Workspace-Signature` header and the endpoint's secret. Answers the typed event
 * (Dates as Dates); rejects with a WebhookSignatureError when the signature is missing, malformed,
 * too old or does not match, or the body is not an event, and with a TypeError when the options
 * are unusable (an empty secret, a tolerance that is not a finite number >= 0).
 *
 * ```ts
 * app.post('/hooks', express.raw({ type: 'application/json' }), async (req, res) => {
 *   let event;
 *   try {
 *     event = await constructWebhookEvent(req.body, req.get('Workspace-Signature'), secret);
 *   } catch (err) {
 *     if (err instanceof WebhookSignatureError) return res.status(400).send(err.message);
 *     throw err;
 *   }
 *   if (event.type === 'invoice.paid') console.log(event.data.object.total, event.data.object.paidAt); // a Date
 *   res.sendStatus(204);
 * });
 * ```
 */
export async function constructWebhookEvent(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: ConstructWebhookEventOptions = {},
): Promise<WorkspaceEvent> {
  const problem = await signatureProblem({ payload: rawBody, header: signatureHeader ?? '', secret, ...options });
  if (problem) throw new WebhookSignatureError(problem);
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch (cause) {
    throw new WebhookSignatureError('invalid_payload', { cause });
  }
  const { id, type, data } = (event ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string' || data === null || typeof data !== 'object') throw new WebhookSignatureError('invalid_payload');
  return reviveEvent(event);
}
