import { createHmac } from 'node:crypto';
import { signPayload } from '../../src/webhooks/signature';
import { verifyWebhookSignature } from '../../packages/client/src';

const secret = 'whsec_test0123456789abcdefghijklmnopq';
const body = '{"id":"evt_1","type":"lead.created","data":{"object":{"id":"lead_1","name":"Zoë"}}}';
const t = 1_800_000_000;
const at = (seconds: number) => new Date(seconds * 1000);
const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

describe('signPayload', () => {
  it('answers t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    expect(signPayload(secret, body, t)).toBe(`t=${t},v1=${hmac(secret, `${t}.${body}`)}`);
  });

  it('signs with the current secret, then the previous one, during a rotation', () => {
    expect(signPayload([secret, 'whsec_old'], body, t)).toBe(`t=${t},v1=${hmac(secret, `${t}.${body}`)},v1=${hmac('whsec_old', `${t}.${body}`)}`);
  });
});

describe('verifyWebhookSignature', () => {
  const header = signPayload(secret, body, t);

  it('accepts the body and header as sent, within the tolerance either side', async () => {
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t) })).toBe(true);
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t + 300) })).toBe(true);
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t - 300) })).toBe(true);
  });

  it('refuses another secret, a changed body and a changed timestamp', async () => {
    expect(await verifyWebhookSignature({ payload: body, header, secret: 'whsec_other', now: at(t) })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body.replace('Zoë', 'Zoe'), header, secret, now: at(t) })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header: header.replace(`t=${t}`, `t=${t + 1}`), secret, now: at(t) })).toBe(false);
  });

  it('refuses a timestamp older (or newer) than the tolerance: a replayed delivery', async () => {
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t + 301) })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t - 301) })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header, secret, now: at(t + 3600), toleranceSeconds: 3600 })).toBe(true);
  });

  it('accepts any matching v1: a receiver holding either secret passes during a rotation', async () => {
    const rotated = signPayload(['whsec_new', secret], body, t);
    expect(await verifyWebhookSignature({ payload: body, header: rotated, secret, now: at(t) })).toBe(true);
    expect(await verifyWebhookSignature({ payload: body, header: rotated, secret: 'whsec_new', now: at(t) })).toBe(true);
    expect(await verifyWebhookSignature({ payload: body, header: rotated, secret: 'whsec_neither', now: at(t) })).toBe(false);
  });

  it('refuses malformed headers', async () => {
    const v1 = hmac(secret, `${t}.${body}`);
    for (const bad of ['', `v1=${v1}`, `t=${t}`, `t=${t},v1=${v1.slice(1)}`, `t=${t},v1=${v1}zz`, `t=abc,v1=${v1}`, `t=${t},v0=${v1}`]) {
      expect(await verifyWebhookSignature({ payload: body, header: bad, secret, now: at(t) })).toBe(false);
    }
  });
});
