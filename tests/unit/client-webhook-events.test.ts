import { signPayload } from '../../src/webhooks/signature';
import { constructWebhookEvent, verifyWebhookSignature, WebhookSignatureError, type WorkspaceEvent } from '../../packages/client/src';

const secret = 'whsec_test0123456789abcdefghijklmnopq';
const t = 1_800_000_000;
const at = (seconds: number) => new Date(seconds * 1000);

/** A body as the delivery worker sends it (src/webhooks/delivery-request.ts): plain JSON, date-times as ISO text. */
const event = {
  id: 'evt_3kTMd9VbX2qLr7NwY5pHcZ',
  type: 'invoice.paid',
  createdAt: '2026-12-10T15:00:00.000Z',
  orgId: 'org_3kTMd9VbX2qLr7NwY5pHcZ',
  actor: { kind: 'apiKey', id: 'key_3kTMd9VbX2qLr7NwY5pHcZ' },
  data: {
    object: {
      id: 'inv_3kTMd9VbX2qLr7NwY5pHcZ', clientId: 'cli_3kTMd9VbX2qLr7NwY5pHcZ', currency: 'GBP', status: 'PAID',
      dueDate: '2030-01-31T00:00:00.000Z', sentAt: '2026-11-26T09:30:00.000Z', paidAt: '2026-12-10T15:00:00.000Z', voidedAt: null,
      items: [{ id: 'line_3kTMd9VbX2qLr7NwY5pHcZ', description: 'Zoë’s redesign', quantity: 2, unitPrice: 150000, total: 300000 }],
      total: 300000, createdAt: '2026-11-20T14:05:00.000Z', updatedAt: '2026-12-10T15:00:00.000Z',
    },
    from: 'SENT',
    to: 'PAID',
  },
};
const body = JSON.stringify(event);
const header = signPayload(secret, body, t);

describe('constructWebhookEvent', () => {
  it('answers the typed event of a body signed with the secret, its date-times revived as Dates', async () => {
    const constructed: WorkspaceEvent = await constructWebhookEvent(body, header, secret, { now: at(t) });

    expect(constructed.type).toBe('invoice.paid');
    if (constructed.type !== 'invoice.paid') throw new Error('narrowed by type');
    expect(constructed.createdAt).toEqual(new Date('2026-12-10T15:00:00.000Z'));
    expect(constructed.data.object.paidAt).toEqual(new Date('2026-12-10T15:00:00.000Z'));
    expect(constructed.data.object.voidedAt).toBeNull();
    expect([constructed.data.from, constructed.data.to, constructed.data.object.items[0]!.description]).toEqual(['SENT', 'PAID', 'Zoë’s redesign']);
  });

  it('takes the raw body as bytes (a Buffer, as express.raw gives it), signed as received', async () => {
    const constructed = await constructWebhookEvent(Buffer.from(body, 'utf8'), header, secret, { now: at(t) });
    expect(constructed.id).toBe(event.id);
  });

  it('refuses a body changed after signing, another secret, and a missing or malformed header, naming why', async () => {
    const cases: [string | Uint8Array, string | undefined, string, string][] = [
      [body.replace('Zoë', 'Zoe'), header, secret, 'no_matching_signature'],
      [body, header, 'whsec_other', 'no_matching_signature'],
      [body, undefined, secret, 'missing_header'],
      [body, '', secret, 'missing_header'],
      [body, `t=${t}`, secret, 'malformed_header'],
      [body, 'v1=abc', secret, 'malformed_header'],
    ];
    for (const [payload, signature, key, reason] of cases) {
      const refused = await constructWebhookEvent(payload, signature, key, { now: at(t) }).catch((e: unknown) => e);
      expect([reason, refused]).toEqual([reason, expect.any(WebhookSignatureError)]);
      expect([reason, (refused as WebhookSignatureError).reason]).toEqual([reason, reason]);
    }
  });

  it('refuses a replayed delivery (a timestamp outside the tolerance) and takes a wider tolerance when given', async () => {
    const late = await constructWebhookEvent(body, header, secret, { now: at(t + 301) }).catch((e: unknown) => e);
    expect(late).toMatchObject({ name: 'WebhookSignatureError', reason: 'timestamp_out_of_tolerance' });
    await expect(constructWebhookEvent(body, header, secret, { now: at(t + 3600), toleranceSeconds: 3600 })).resolves.toMatchObject({ id: event.id });
  });

  it('refuses a correctly signed body that is not an event', async () => {
    for (const text of ['not json', '[1,2]', '{"id":"evt_1"}']) {
      const refused = await constructWebhookEvent(text, signPayload(secret, text, t), secret, { now: at(t) }).catch((e: unknown) => e);
      expect([text, (refused as WebhookSignatureError).reason]).toEqual([text, 'invalid_payload']);
    }
  });

  it('keeps the data of an event type this client does not know, reviving only its createdAt', async () => {
    const future = JSON.stringify({ ...event, type: 'invoice.refunded', data: { object: { id: 'inv_1', refundedAt: '2027-01-01T00:00:00.000Z' } } });
    const constructed = await constructWebhookEvent(future, signPayload(secret, future, t), secret, { now: at(t) });
    expect(constructed.createdAt).toBeInstanceOf(Date);
    expect((constructed.data as unknown as { object: { refundedAt: unknown } }).object.refundedAt).toBe('2027-01-01T00:00:00.000Z');
  });

  it('throws a TypeError, not a signature error, when its options cannot make a check (fails closed)', async () => {
    await expect(constructWebhookEvent(body, header, '', { now: at(t) })).rejects.toThrow(TypeError);
    await expect(constructWebhookEvent(body, header, secret, { now: at(t), toleranceSeconds: Number.NaN })).rejects.toThrow(TypeError);
  });
});

describe('verifyWebhookSignature fails closed', () => {
  const check = (options: { toleranceSeconds?: unknown; now?: unknown; secret?: unknown }) =>
    verifyWebhookSignature({ payload: body, header, secret, now: at(t), ...options } as Parameters<typeof verifyWebhookSignature>[0]);

  it('throws a TypeError for a tolerance that is not a finite number of seconds, 0 or more, whatever the signature', async () => {
    for (const toleranceSeconds of [Number.NaN, Infinity, -Infinity, -1, '300', null]) {
      await expect(check({ toleranceSeconds })).rejects.toThrow(new TypeError(`verifyWebhookSignature: \`toleranceSeconds\` must be a finite number of seconds, 0 or more (got ${String(toleranceSeconds)})`));
    }
  });

  it('throws a TypeError for an invalid now (an Invalid Date, or not a Date)', async () => {
    for (const now of [new Date(Number.NaN), new Date('not a date'), 1_800_000_000_000, 'now', null]) {
      await expect(check({ now })).rejects.toThrow(new TypeError('verifyWebhookSignature: `now` must be a valid Date'));
    }
  });

  it('throws a TypeError for an empty or absent secret: an HMAC under an empty key anyone can make', async () => {
    for (const key of ['', undefined, null]) await expect(check({ secret: key })).rejects.toThrow(TypeError);
  });

  it('still answers true with a tolerance of 0 at the signed second, and false one second later', async () => {
    expect(await check({ toleranceSeconds: 0 })).toBe(true);
    expect(await check({ toleranceSeconds: 0, now: at(t + 1) })).toBe(false);
  });

  it('answers false, not an exception, for an absent header (an unsigned request)', async () => {
    expect(await verifyWebhookSignature({ payload: body, header: undefined as unknown as string, secret, now: at(t) })).toBe(false);
  });
});
