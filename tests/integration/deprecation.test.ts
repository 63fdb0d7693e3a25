import { z } from 'zod';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { createRegistry } from '../../src/rpc/registry';
import { defineProcedure } from '../../src/rpc/define-procedure';

const ping = (name: string, deprecated?: { since: string; sunset: string; replacement?: string }) =>
  defineProcedure({
    name,
    method: 'GET',
    scope: 'leads.read',
    exposed: true,
    description: 'test procedure',
    input: z.undefined(),
    output: z.unknown(),
    deprecated,
    handler: async () => ({ pong: true }),
  });

const ctx = createTestContext({
  registry: createRegistry([
    ping('legacy.ping', { since: '2026-11-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', replacement: 'current.ping' }),
    ping('current.ping'),
  ]),
});
afterAll(() => ctx.close());

describe('GET a deprecated procedure', () => {
  it('answers normally with Deprecation, Sunset and a successor Link', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'legacy.ping', undefined, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ pong: true });
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('</api/v1/rpc/current.ping>; rel="successor-version"');
  });

  it('sends no deprecation headers for a current procedure', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'current.ping', undefined, ws.key);
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});

describe('createRegistry with a deprecated procedure', () => {
  it('refuses a sunset less than six months after deprecation', () => {
    expect(() => createRegistry([ping('legacy.ping', { since: '2026-11-01', sunset: '2027-01-01' })])).toThrow(/six months/);
  });

  it('refuses dates that are not ISO 8601', () => {
    expect(() => createRegistry([ping('legacy.ping', { since: 'soon', sunset: 'later' })])).toThrow(/ISO 8601/);
  });
});
