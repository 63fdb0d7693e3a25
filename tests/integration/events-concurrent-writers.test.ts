import type { Server } from 'node:http';
import { createTestContext, createTestDb } from '../helpers/test-app';
import { untilEventsVisible } from '../helpers/event-horizon';
import { createWorkspace } from '../helpers/factories';
import { createRawClient, type RawResponse } from '../helpers/raw-http';
import { sleep } from '../helpers/poll';

/**
 * Issue 38: 50 writers create, update and delete leads of one workspace through the action
 * endpoints while 5 readers follow `events.getAll` in catch-up mode, each from `after: null` and
 * on from its own last id, until the writers are done and nothing new comes. Every event the
 * workspace committed must reach every reader exactly once, in the same order for all of them,
 * and the leads list's totals must be the counts of the rows.
 *
 * Everything goes over real HTTP to an app listening on a port, through a keep-alive agent with a
 * socket for every writer and reader, on a pool wide enough for transactions to overlap.
 */

const WRITERS = 50;
const READERS = 5;
/** Each writer's rounds: 2 creates, 4 updates, a delete every other round (6-7 writes a round). */
const ROUNDS = 2;
const PAGE_SIZE = 100;

const ctx = createTestContext({ db: createTestDb(16) });
let server: Server;
let client: ReturnType<typeof createRawClient>;
beforeAll(async () => {
  server = await new Promise<Server>((resolve) => {
    const started = ctx.app.listen(0, '127.0.0.1', () => resolve(started));
  });
  client = createRawClient(server, WRITERS + READERS + 5);
});
afterAll(async () => {
  client?.close();
  await new Promise((resolve) => server?.close(resolve));
  await ctx.close();
});

type Status = 'NOT_CONTACTED' | 'CONTACTED' | 'LOST' | 'NO_ANSWER';

/** A lead as its writer (its only writer) knows it from the answers it got. */
interface KnownLead {
  id: string;
  status: Status;
  assignedToId: string | null;
}

/** What the acknowledged writes must have committed: events by type, and the live leads. */
interface WriterTally {
  events: Record<string, number>;
  live: Map<string, KnownLead>;
  writes: number;
}

class HttpFailure extends Error {}

function parse(what: string, res: RawResponse): any {
  if (res.status !== 200) throw new HttpFailure(`${what} answered ${res.status}: ${res.text.slice(0, 500)}`);
  return JSON.parse(res.text);
}

async function action(key: string, name: string, input: unknown): Promise<any> {
  const res = await client.send({
    method: 'POST',
    target: `/api/v1/rpc/${name}`,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ json: input }),
  });
  return parse(`${name} ${JSON.stringify(input)}`, res).result.data.json;
}

interface EventsPage {
  ids: string[];
  nextAfter: string | null;
  hasNextPage: boolean;
}

async function eventsAfter(key: string, after: string | null): Promise<EventsPage> {
  const input = encodeURIComponent(JSON.stringify({ json: { after, pageSize: PAGE_SIZE } }));
  const res = await client.send({ method: 'GET', target: `/api/v1/rpc/events.getAll?input=${input}`, headers: { Authorization: `Bearer ${key}` } });
  const page = parse(`events.getAll after ${after}`, res).result.data.json;
  return { ids: page.data.map((e: { id: string }) => e.id), nextAfter: page.pagination.nextAfter, hasNextPage: page.pagination.hasNextPage };
}

/** One writer's script over its own leads; every answer must be a 200. */
async function runWriter(w: number, key: string, memberId: string): Promise<WriterTally> {
  const tally: WriterTally = { events: {}, live: new Map(), writes: 0 };
  const count = (type: string) => (tally.events[type] = (tally.events[type] ?? 0) + 1);

  async function create(name: string, status: Status, assignedToId: string | null): Promise<KnownLead> {
    const lead = await action(key, 'leads.create', { name, phone: '+442079460000', status, assignedToId, notes: `by writer ${w}` });
    tally.writes++;
    count('contact.created');
    count('lead.created');
    const known = { id: lead.id, status: lead.status, assignedToId: lead.assignedToId };
    expect(known).toEqual({ id: expect.stringMatching(/^lead_/), status, assignedToId });
    tally.live.set(known.id, known);
    return known;
  }

  async function update(lead: KnownLead, patch: { name?: string; notes?: string; status?: Status; assignedToId?: string | null }): Promise<void> {
    const answered = await action(key, 'leads.update', { id: lead.id, ...patch });
    tally.writes++;
    count('lead.updated');
    if (patch.name !== undefined) count('contact.updated');
    if (patch.status !== undefined && patch.status !== lead.status) count('lead.status_changed');
    if (patch.assignedToId !== undefined && patch.assignedToId !== lead.assignedToId) count('lead.assigned');
    lead.status = patch.status ?? lead.status;
    lead.assignedToId = patch.assignedToId === undefined ? lead.assignedToId : patch.assignedToId;
    expect({ status: answered.status, assignedToId: answered.assignedToId }).toEqual({ status: lead.status, assignedToId: lead.assignedToId });
  }

  async function remove(lead: KnownLead): Promise<void> {
    expect(await action(key, 'leads.delete', { id: lead.id })).toEqual({ id: lead.id, deleted: true });
    tally.writes++;
    count('lead.deleted');
    tally.live.delete(lead.id);
  }

  for (let round = 0; round < ROUNDS; round++) {
    const tag = `w${w}r${round}`;
    const first = await create(`First ${tag}`, 'NOT_CONTACTED', w % 3 === 0 ? memberId : null);
    const second = await create(`Second ${tag}`, w % 2 === 0 ? 'NO_ANSWER' : 'NOT_CONTACTED', null);
    await update(first, { notes: `called ${tag}`, status: 'CONTACTED' });
    await update(second, { name: `Renamed ${tag}` }); // the contact's name: contact.updated too
    await update(first, { assignedToId: w % 2 === 0 ? memberId : null, notes: `reassigned ${tag}` });
    await update(second, { status: round % 2 === 0 ? 'CONTACTED' : 'LOST' });
    if ((w + round) % 2 === 0) await remove(round % 2 === 0 ? second : first);
  }
  return tally;
}

interface ReaderLog {
  reader: number;
  seen: string[];
  /** Events answered before the last writer finished: the reader did follow the writes. */
  seenWhileWriting: number;
  pages: number;
}

/** Follows the workspace's events from the start until the writers are done, then drains. */
async function runReader(reader: number, key: string, writersDone: () => boolean, allVisible: () => boolean): Promise<ReaderLog> {
  const log: ReaderLog = { reader, seen: [], seenWhileWriting: 0, pages: 0 };
  let after: string | null = null;
  const next = async () => {
    const page = await eventsAfter(key, after);
    log.pages++;
    log.seen.push(...page.ids);
    // An empty page answers the `after` it was given; one with events, the last of them.
    expect(page.nextAfter).toBe(page.ids.at(-1) ?? after);
    after = page.nextAfter;
    return page;
  };
  while (!writersDone()) {
    const page = await next();
    if (!writersDone()) log.seenWhileWriting = log.seen.length;
    if (!page.hasNextPage) await sleep(5 + 5 * reader);
  }
  // Every write has been answered, so committed; once catch-up can show all of it (no older
  // transaction, of this test or another, still open), read on until a page brings nothing new.
  for (;;) {
    const visibleBefore = allVisible();
    const page = await next();
    if (page.ids.length === 0 && !page.hasNextPage && visibleBefore) return log;
    if (page.ids.length === 0) await sleep(10);
  }
}

function describeEvent(row: { id: string; type: string; created_at: Date; object_id: string | null } | undefined, id: string): string {
  return row ? `${id} (${row.type} of ${row.object_id}, ${row.created_at.toISOString()})` : `${id} (not in the events table)`;
}

/** What is wrong with one reader's ids against the committed events: none of it, when all is well. */
function readerProblems(log: ReaderLog, committed: Map<string, { id: string; type: string; created_at: Date; object_id: string | null }>) {
  const counts = new Map<string, number>();
  for (const id of log.seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  const firstPositions = (id: string) => log.seen.flatMap((seen, i) => (seen === id ? [i] : []));
  const duplicates = [...counts].filter(([, n]) => n > 1)
    .map(([id, n]) => `${describeEvent(committed.get(id), id)} seen ${n} times, at positions ${firstPositions(id).join(', ')}`);
  const missing = [...committed.keys()].filter((id) => !counts.has(id)).map((id) => describeEvent(committed.get(id), id));
  const unknown = [...counts.keys()].filter((id) => !committed.has(id));
  return {
    reader: log.reader,
    seen: log.seen.length,
    duplicates: duplicates.slice(0, 20),
    missing: missing.slice(0, 20),
    missingCount: missing.length,
    unknown: unknown.slice(0, 20),
  };
}

/** Where reader `b` first parts from reader `a`'s order, with the ids either side; null if never. */
function firstDivergence(a: string[], b: string[]): string | null {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a[i] !== b[i]) {
      return `at position ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 2), i + 3))} vs ${JSON.stringify(b.slice(Math.max(0, i - 2), i + 3))}`;
    }
  }
  return null;
}

describe('events.getAll catch-up while 50 writers change one workspace (issue 38)', () => {
  it('shows every reader every committed event exactly once, all in one order, and the list totals stay exact', async () => {
    const ws = await createWorkspace(ctx.db, { tier: 'BUSINESS' });
    const orgId = ws.org.id;
    const memberId = ws.member.id;

    let writing = true;
    let allVisible = false;
    const readers = Array.from({ length: READERS }, (_, r) => runReader(r, ws.key, () => !writing, () => allVisible));
    const writers = await Promise.allSettled(Array.from({ length: WRITERS }, (_, w) => runWriter(w, ws.key, memberId)));
    writing = false;
    await untilEventsVisible(ctx.db, orgId);
    allVisible = true;
    const readerResults = await Promise.allSettled(readers);

    // A refused write or read fails the test on its own answer before anything is compared.
    const failures = [...writers, ...readerResults].flatMap((r, i) => (r.status === 'rejected'
      ? [`${i < WRITERS ? `writer ${i}` : `reader ${i - WRITERS}`}: ${String(r.reason?.message ?? r.reason)}`]
      : []));
    expect(failures).toEqual([]);
    const tallies = writers.map((r) => (r as PromiseFulfilledResult<WriterTally>).value);
    const logs = readerResults.map((r) => (r as PromiseFulfilledResult<ReaderLog>).value);

    // Every committed event, read by the test itself (naming the workspace: one shard on Citus).
    const rows: { id: string; type: string; created_at: Date; object_id: string | null }[] = await ctx.db('events')
      .where({ org_id: orgId })
      .select('id', 'type', 'created_at', 'object_id');
    const committed = new Map(rows.map((row) => [row.id, row]));

    // The acknowledged writes and the committed events agree, type by type.
    const expectedByType: Record<string, number> = {};
    for (const t of tallies) for (const [type, n] of Object.entries(t.events)) expectedByType[type] = (expectedByType[type] ?? 0) + n;
    const committedByType: Record<string, number> = {};
    for (const row of rows) committedByType[row.type] = (committedByType[row.type] ?? 0) + 1;
    expect(committedByType).toEqual(expectedByType);
    expect(tallies.reduce((n, t) => n + t.writes, 0)).toBeGreaterThanOrEqual(WRITERS * ROUNDS * 6);

    // Each reader: every committed event once, none twice, nothing else.
    expect(logs.map((log) => readerProblems(log, committed))).toEqual(logs.map((log) => ({
      reader: log.reader, seen: rows.length, duplicates: [], missing: [], missingCount: 0, unknown: [],
    })));
    // ... and all of them in one order.
    expect(logs.map((log) => ({ reader: log.reader, divergesFromReader0: firstDivergence(logs[0]!.seen, log.seen) })))
      .toEqual(logs.map((log) => ({ reader: log.reader, divergesFromReader0: null })));
    // The readers did follow the writes as they happened (else the test shows nothing about ordering).
    for (const log of logs) expect({ reader: log.reader, followedWhileWriting: log.seenWhileWriting > 0 }).toEqual({ reader: log.reader, followedWhileWriting: true });

    // The leads list's totals are the rows' counts, with and without filters.
    const live = tallies.flatMap((t) => [...t.live.values()]);
    const cases: { query: Record<string, string>; where: (q: any) => unknown; expected: number }[] = [
      { query: {}, where: () => undefined, expected: live.length },
      { query: { status: 'CONTACTED' }, where: (q) => q.where('status', 'CONTACTED'), expected: live.filter((l) => l.status === 'CONTACTED').length },
      { query: { status: 'LOST' }, where: (q) => q.where('status', 'LOST'), expected: live.filter((l) => l.status === 'LOST').length },
      { query: { assignedToId: 'unassigned' }, where: (q) => q.whereNull('assigned_to_id'), expected: live.filter((l) => l.assignedToId === null).length },
      { query: { assignedToId: memberId }, where: (q) => q.where('assigned_to_id', memberId), expected: live.filter((l) => l.assignedToId === memberId).length },
      {
        query: { status: 'CONTACTED', assignedToId: 'unassigned' },
        where: (q) => q.where('status', 'CONTACTED').whereNull('assigned_to_id'),
        expected: live.filter((l) => l.status === 'CONTACTED' && l.assignedToId === null).length,
      },
    ];
    for (const { query, where, expected } of cases) {
      const counted = ctx.db('leads').where('org_id', orgId).count<{ n: string }[]>({ n: '*' });
      where(counted);
      const rowsCounted = Number((await counted)[0]!.n);
      const search = new URLSearchParams({ ...query, pageSize: '1' });
      const res = await client.send({ method: 'GET', target: `/api/v1/leads?${search}`, headers: { Authorization: `Bearer ${ws.key}` } });
      const total = parse(`GET /api/v1/leads?${search}`, res).pagination.total;
      expect({ query, listTotal: total, acknowledged: expected }).toEqual({ query, listTotal: rowsCounted, acknowledged: rowsCounted });
    }
  }, 120_000);
});
