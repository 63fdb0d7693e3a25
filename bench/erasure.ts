import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL, LARGE_WORKSPACE } from './lib/dataset';
import { buildService, serviceArgs, serviceEnv, withServer } from './lib/processes';
import { median } from './lib/report';
import { insertLeads } from '../src/db/leads/create';
import { addToCounts } from '../src/db/leads/counters';
import { storeLeadJson } from '../src/db/leads/lead-json';
import type { Db } from '../src/db/knex';

// `npx tsx bench/erasure.ts [--rounds R]`: issue 50's erasure target. In a new, empty workspace
// and in the million-lead one (`bench large 1000000`, loaded on the first run), R times: a person
// with 10 leads (one made by leads.create, nine more of its contact written as the import writes
// them, counters and stored JSON included) and 1,000 events (leads.update of their notes, which
// also writes 1,000 history entries), then contacts.erase through HTTP, timed from the request
// to the answer. Prints each round and the medians. Target: under a second in both, the large
// workspace no slower than the empty one by more than the run's noise.

const at = process.argv.indexOf('--rounds');
const ROUNDS = at === -1 ? 3 : Number(process.argv[at + 1]);
const LEADS = 10;
const EVENTS = 1000;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

async function rpc(baseUrl: string, key: string, name: string, input: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/api/v1/rpc/${name}`, {
    method: 'POST', headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ json: input }),
  });
  const body = (await res.json()) as { result?: { data: { json: Record<string, unknown> } } };
  if (!res.ok || !body.result) throw new Error(`${name} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.result.data.json;
}

/** A person with LEADS leads and EVENTS events naming them; answers the contact's id. */
async function personWithHistory(db: Db, baseUrl: string, key: string, orgId: string, round: number): Promise<string> {
  const tag = `${process.pid}-${round}-${Date.now()}`;
  const first = await rpc(baseUrl, key, 'leads.create', { name: `Erasable ${tag}`, phone: `+4474${String(Date.now()).slice(-8)}`, email: `erasable.${tag}@example.com` });
  const contactId = first.contactId as string;
  const more = await db.transaction(async (trx) => {
    const ids = await insertLeads(trx, orgId, Array.from({ length: LEADS - 1 }, () => ({
      contactId, status: 'NOT_CONTACTED' as const, source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null,
    })));
    await addToCounts(trx, orgId, [{ status: 'NOT_CONTACTED', assignedToId: null, n: ids.length }]);
    await storeLeadJson(trx, orgId, { leadIds: ids });
    return ids;
  });
  const leadIds = [first.id as string, ...more];
  // One writer per lead, so no update waits on another's row lock.
  await Promise.all(leadIds.map(async (id, lane) => {
    for (let i = lane; i < EVENTS; i += leadIds.length) await rpc(baseUrl, key, 'leads.update', { id, notes: `note ${i} of ${tag}` });
  }));
  return contactId;
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const large = await ensureWorkspace(db, LARGE_WORKSPACE, 1_000_000, { rebuildIndexes: true });
  const empty = await ensureWorkspace(db, `bench erasure empty ${process.pid}`, 0);
  const workspaces = [
    { name: 'empty workspace', orgId: empty.orgId, key: await createBenchKey(db, empty.orgId), ms: [] as number[] },
    { name: '1,000,000 leads', orgId: large.orgId, key: await createBenchKey(db, large.orgId), ms: [] as number[] },
  ];
  try {
    await withServer('ours', serviceArgs(buildService()), serviceEnv(url, 'warn'), async (server) => {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const ws of round % 2 === 0 ? [...workspaces].reverse() : workspaces) {
          const contactId = await personWithHistory(db, server.baseUrl, ws.key, ws.orgId, round);
          const started = performance.now();
          const erased = await rpc(server.baseUrl, ws.key, 'contacts.erase', { id: contactId });
          const ms = performance.now() - started;
          if ((erased.leadIds as string[]).length !== LEADS) throw new Error(`erased ${(erased.leadIds as string[]).length} leads, not ${LEADS}`);
          ws.ms.push(ms);
          process.stderr.write(`round ${round} ${ws.name}: contacts.erase of ${LEADS} leads and ${EVENTS} events in ${ms.toFixed(0)} ms\n`);
        }
      }
    });
  } finally {
    await db('organisations').where({ id: empty.orgId }).delete();
    await db.destroy();
  }
  const lines = [
    `contacts.erase of a person with ${LEADS} leads and ${EVENTS} events (and as many history entries), through HTTP; ${ROUNDS} rounds taking turns.`,
    '',
    '| workspace | each round, ms | median, ms |',
    '|---|---|---:|',
    ...workspaces.map((ws) => `| ${ws.name} | ${ws.ms.map((m) => m.toFixed(0)).join(', ')} | ${median(ws.ms).toFixed(0)} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
