import { createNodeGuard, type NodeGuardSettings } from '../../src/db/nodes';
import { AppError } from '../../src/errors/app-error';
import { createLogger } from '../../src/logger';

/** What pg raises when PostgreSQL cancels a statement at its statement_timeout. */
const statementTimeout = () => Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5461'), { code: 'ECONNREFUSED' });

/**
 * The node as its probes meet it (node-probe.ts asks the real one; this file tests the breaker's
 * states): `hang()` leaves every probe waiting until `answer()`, `refuse()` fails each at once.
 */
function probedNode() {
  let mode: 'answer' | 'hang' | 'refuse' = 'answer';
  let waiting: (() => void)[] = [];
  const probes: string[] = [];
  return {
    probes,
    probe(node: string): Promise<void> {
      probes.push(node);
      if (mode === 'refuse') return Promise.reject(refused());
      if (mode === 'answer') return Promise.resolve();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    hang: () => void (mode = 'hang'),
    refuse: () => void (mode = 'refuse'),
    answer() {
      mode = 'answer';
      for (const resolve of waiting) resolve();
      waiting = [];
    },
  };
}

function guardWith(settings: Partial<NodeGuardSettings> = {}) {
  let logged = '';
  const logger = createLogger('info', { destination: { write: (line: string) => void (logged += line) } });
  const node = probedNode();
  node.hang();
  const guard = createNodeGuard({ maxInFlight: () => 2, queueTimeoutMs: 200, failuresToOpen: 3, openMs: 300, probe: (n) => node.probe(n), ...settings }, logger);
  const lines = () => logged.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { guard, lines, node };
}

const fail = (make: () => Error) => () => Promise.reject(make());
const ok = () => Promise.resolve('ok');
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (err: unknown) => (err instanceof AppError ? err.code : (err as { code?: string }).code));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a database node\'s circuit breaker', () => {
  it('opens after three failures in a row, then answers 503 with Retry-After at once, naming the node once in the log', async () => {
    const { guard, lines } = guardWith();
    for (let i = 0; i < 3; i += 1) expect(await codeOf(guard.run('w1:5461', fail(statementTimeout)))).toBe('57014');
    const started = Date.now();
    const err = await guard.run('w1:5461', ok).catch((e: unknown) => e) as AppError;
    expect(Date.now() - started).toBeLessThan(50);
    expect([err.code, err.headers?.['Retry-After']]).toEqual(['SERVICE_UNAVAILABLE', '1']);
    expect(guard.report()).toEqual([expect.objectContaining({ node: 'w1:5461', state: 'open', timeouts: 3, failures: 3, rejected: 1 })]);
    // Another node is not touched.
    expect(await guard.run('w2:5462', ok)).toBe('ok');
    expect(lines()).toEqual([expect.objectContaining({ level: 40, node: 'w1:5461', msg: expect.stringContaining('database node w1:5461 is not answering') })]);
  });

  it('stays open while its one probe waits on a hung node, and closes the moment the node answers it', async () => {
    const { guard, lines, node } = guardWith();
    for (let i = 0; i < 3; i += 1) await codeOf(guard.run('n', fail(statementTimeout)));
    // However long the node stays silent, one probe waits on it and no request goes through.
    for (let i = 0; i < 5; i += 1) {
      expect(await codeOf(guard.run('n', ok))).toBe('SERVICE_UNAVAILABLE');
      await sleep(100);
    }
    expect(node.probes).toEqual(['n']);
    expect(guard.report()[0]!.state).toBe('open');
    node.answer();
    await sleep(0);
    expect(guard.report()[0]!.state).toBe('closed');
    expect(await guard.run('n', ok)).toBe('ok');
    expect(lines().map((l) => l.msg)).toEqual([expect.stringContaining('is not answering'), expect.stringContaining('answers again')]);
  });

  it('probes a node that refuses every openMs until one probe is answered', async () => {
    const { guard, node } = guardWith({ openMs: 100 });
    node.refuse();
    for (let i = 0; i < 3; i += 1) await codeOf(guard.run('n', fail(refused)));
    await sleep(350);
    expect(guard.report()[0]!.state).toBe('open');
    expect(await codeOf(guard.run('n', ok))).toBe('SERVICE_UNAVAILABLE');
    // One at once, then one every 100 ms: not one per request.
    expect(node.probes.length).toBeGreaterThanOrEqual(3);
    expect(node.probes.length).toBeLessThanOrEqual(5);
    node.answer();
    await sleep(150);
    expect(guard.report()[0]!.state).toBe('closed');
    expect(await guard.run('n', ok)).toBe('ok');
  });

  it('closes on the late answer of a request begun before it opened', async () => {
    const { guard } = guardWith();
    let answer!: () => void;
    const late = guard.run('n', () => new Promise<string>((resolve) => (answer = () => resolve('late'))));
    for (let i = 0; i < 3; i += 1) await codeOf(guard.run('n', fail(statementTimeout)));
    expect(guard.report()[0]!.state).toBe('open');
    answer();
    expect(await late).toBe('late');
    expect(guard.report()[0]!.state).toBe('closed');
  });

  it('counts only the node\'s silence: bad input, conflicts and this process\'s own pool do not open it', async () => {
    const { guard } = guardWith({ failuresToOpen: 1 });
    await codeOf(guard.run('n', fail(() => new AppError('BAD_REQUEST', 'no'))));
    await codeOf(guard.run('n', fail(() => Object.assign(new Error('duplicate key'), { code: '23505' }))));
    await codeOf(guard.run('n', fail(() => new Error('Knex: Timeout acquiring a connection. The pool is probably full.'))));
    expect(guard.report()[0]).toEqual(expect.objectContaining({ state: 'closed', failures: 0 }));
  });

  it('a success between failures starts the count again', async () => {
    const { guard } = guardWith();
    await codeOf(guard.run('n', fail(refused)));
    await codeOf(guard.run('n', fail(refused)));
    await guard.run('n', ok);
    await codeOf(guard.run('n', fail(refused)));
    await codeOf(guard.run('n', fail(refused)));
    expect(guard.report()[0]!.state).toBe('closed');
  });
});

describe('a database node\'s bulkhead', () => {
  it('holds at most maxInFlight requests at once; the next waits for room, or is answered 503 when none comes in time', async () => {
    const { guard } = guardWith({ queueTimeoutMs: 100 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = [guard.run('n', () => held), guard.run('n', () => held)];
    expect(guard.report()[0]).toEqual(expect.objectContaining({ inFlight: 2, queued: 0 }));
    const waited = guard.run('n', ok);
    expect(guard.report()[0]!.queued).toBe(1);
    // Another node has its own room.
    expect(await guard.run('other', ok)).toBe('ok');
    release();
    await Promise.all(running);
    expect(await waited).toBe('ok');

    let never!: () => void;
    const stuck = [guard.run('n', () => new Promise<void>((r) => (never = r))), guard.run('n', () => new Promise<void>(() => undefined))];
    const err = await guard.run('n', ok).catch((e: unknown) => e) as AppError;
    expect([err.code, err.headers?.['Retry-After'], err.message]).toEqual(['SERVICE_UNAVAILABLE', '1', 'The database node holding this workspace is busy; retry shortly']);
    never();
    await stuck[0];
  });

  it('answers those waiting at once when the node\'s breaker opens', async () => {
    const { guard } = guardWith({ queueTimeoutMs: 5000, failuresToOpen: 2 });
    let failBoth!: () => void;
    const failing = new Promise<void>((_, reject) => (failBoth = () => reject(statementTimeout())));
    const first = codeOf(guard.run('n', () => failing));
    const second = codeOf(guard.run('n', () => failing));
    const started = Date.now();
    const queued = codeOf(guard.run('n', ok));
    failBoth();
    expect(await Promise.all([first, second, queued])).toEqual(['57014', '57014', 'SERVICE_UNAVAILABLE']);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
