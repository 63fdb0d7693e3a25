import { loadConfig, runsWebhookWorkerInProcess, webhookLeaseMs } from '../../src/config';
import { MAX_RETRY_DELAY_MS, retryDelayMs } from '../../src/webhooks/backoff';
import { deliveryAccessProblem } from '../../src/webhooks/delivery-access';
import { deliveryRequest } from '../../src/webhooks/delivery-request';
import { signPayload } from '../../src/webhooks/signature';

describe('retryDelayMs', () => {
  const middle = () => 0.5;

  it('doubles from the base and stops at 4 hours: with the defaults, 14 attempts span about a day', () => {
    const minutes = Array.from({ length: 13 }, (_, i) => retryDelayMs(i + 1, 60_000, middle) / 60_000);
    expect(minutes).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 240, 240, 240, 240, 240]);
    const hours = minutes.reduce((a, b) => a + b, 0) / 60;
    expect(hours).toBeCloseTo(24.25, 2);
  });

  it('jitters by -20% to +20%, and never overflows however many attempts failed', () => {
    expect(retryDelayMs(1, 1000, () => 0)).toBe(800);
    expect(retryDelayMs(1, 1000, () => 0.999_999)).toBe(1200);
    expect(retryDelayMs(500, 60_000, middle)).toBe(MAX_RETRY_DELAY_MS);
  });
});

describe('deliveryAccessProblem', () => {
  const event = { id: 'evt_1', type: 'lead.created', createdAt: new Date(), actorKind: 'apiKey', actorId: 'key_1', data: {} };
  const allowed = { event, readScopes: ['leads.read'], ownerKind: 'apiKey', ownerId: 'key_1', ownerKey: { revoked: false, expired: false, scopes: ['leads.read'] } };

  it('allows a delivery while the endpoint and its owner key still read the type', () => {
    expect(deliveryAccessProblem(allowed)).toBeUndefined();
  });

  it('names what was withdrawn: the endpoint scope, or the owner key (gone, revoked, expired, scope removed)', () => {
    expect(deliveryAccessProblem({ ...allowed, readScopes: ['tasks.read'] })).toBe('the endpoint does not keep the read scope leads.read that lead.created needs');
    expect(deliveryAccessProblem({ ...allowed, ownerKey: null })).toBe("the endpoint's owner API key key_1 no longer exists");
    expect(deliveryAccessProblem({ ...allowed, ownerKey: { ...allowed.ownerKey, revoked: true } })).toBe("the endpoint's owner API key key_1 was revoked");
    expect(deliveryAccessProblem({ ...allowed, ownerKey: { ...allowed.ownerKey, expired: true } })).toBe("the endpoint's owner API key key_1 has expired");
    expect(deliveryAccessProblem({ ...allowed, ownerKey: { ...allowed.ownerKey, scopes: [] } })).toBe("the endpoint's owner API key key_1 no longer holds leads.read");
  });

  it('checks only the endpoint scopes for an owner that is not an API key', () => {
    expect(deliveryAccessProblem({ ...allowed, ownerKind: 'playgroundToken', ownerKey: null })).toBeUndefined();
  });
});

describe('deliveryRequest', () => {
  it('answers the event as plain JSON and headers signed over that exact text', () => {
    const createdAt = new Date('2026-12-02T10:00:00.123Z');
    const now = new Date('2026-12-02T10:00:05Z');
    const claim = {
      orgId: 'org_1',
      secrets: ['whsec_a'],
      readScopes: ['leads.read'],
      ownerKey: null,
      event: { id: 'evt_1', type: 'lead.updated', createdAt, actorKind: 'apiKey', actorId: 'key_1', data: { object: { id: 'lead_1' } } },
    };
    const { body, headers } = deliveryRequest(claim, now);
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1', type: 'lead.updated', createdAt: '2026-12-02T10:00:00.123Z', orgId: 'org_1', actor: { kind: 'apiKey', id: 'key_1' }, data: { object: { id: 'lead_1' } },
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'WorkspaceAPI-Webhooks/1',
      'Workspace-Event-Id': 'evt_1',
      'Workspace-Event-Type': 'lead.updated',
      'Workspace-Signature': signPayload('whsec_a', body, 1_796_205_605),
    });
  });
});

describe('deliveryRequest of an event embedding another resource', () => {
  const client = { id: 'cli_1', name: 'Navy Ltd', email: 'billing@navy.example', notes: 'private' };
  const claim = (readScopes: string[], ownerKey: { revoked: boolean; expired: boolean; scopes: string[] } | null) => ({
    orgId: 'org_1', secrets: ['whsec_a'], readScopes, ownerKey,
    event: { id: 'evt_1', type: 'lead.converted', createdAt: new Date(), actorKind: 'apiKey', actorId: 'key_1', data: { object: { id: 'lead_1' }, client } },
  });
  const dataOf = (c: ReturnType<typeof claim>) => JSON.parse(deliveryRequest(c).body).data;

  it('carries the client whole only when the endpoint keeps clients.read and its owner key still holds it', () => {
    expect(dataOf(claim(['leads.read', 'clients.read'], null)).client).toEqual(client);
    expect(dataOf(claim(['leads.read', 'clients.read'], { revoked: false, expired: false, scopes: ['leads.read', 'clients.read'] })).client).toEqual(client);
  });

  it('carries only the client id when the endpoint lacks clients.read, or its owner key no longer holds it', () => {
    expect(dataOf(claim(['leads.read'], null))).toEqual({ object: { id: 'lead_1' }, client: { id: 'cli_1' } });
    expect(dataOf(claim(['leads.read', 'clients.read'], { revoked: false, expired: false, scopes: ['leads.read'] })).client).toEqual({ id: 'cli_1' });
  });
});

describe('webhook configuration', () => {
  it('leases three timeouts and at least 10 s by default, and refuses a lease not longer than the timeout', () => {
    expect(webhookLeaseMs(loadConfig({}))).toBe(15_000);
    expect(webhookLeaseMs(loadConfig({ WEBHOOK_TIMEOUT_MS: '1000' }))).toBe(10_000);
    expect(webhookLeaseMs(loadConfig({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2000' }))).toBe(2000);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/^Invalid environment variable WEBHOOK_LEASE_MS/);
  });

  it('runs the worker in the API process on the embedded database only, unless told', () => {
    expect(runsWebhookWorkerInProcess(loadConfig({}))).toBe(true);
    expect(runsWebhookWorkerInProcess(loadConfig({ DATABASE_URL: 'postgres://db/x' }))).toBe(false);
    expect(runsWebhookWorkerInProcess(loadConfig({ DATABASE_URL: 'postgres://db/x', WEBHOOK_WORKER_IN_PROCESS: 'true' }))).toBe(true);
    expect(runsWebhookWorkerInProcess(loadConfig({ WEBHOOK_WORKER_IN_PROCESS: 'false' }))).toBe(false);
    expect(() => loadConfig({ WEBHOOK_WORKER_IN_PROCESS: 'yes' })).toThrow(/WEBHOOK_WORKER_IN_PROCESS/);
  });

  it('reads WEBHOOK_WORKER_ORG_IDS as a list of ids', () => {
    expect(loadConfig({ WEBHOOK_WORKER_ORG_IDS: 'org_a,org_b' }).WEBHOOK_WORKER_ORG_IDS).toEqual(['org_a', 'org_b']);
    expect(loadConfig({}).WEBHOOK_WORKER_ORG_IDS).toBeUndefined();
    expect(() => loadConfig({ WEBHOOK_WORKER_ORG_IDS: 'org_a, org_b' })).toThrow(/WEBHOOK_WORKER_ORG_IDS/);
  });
});
