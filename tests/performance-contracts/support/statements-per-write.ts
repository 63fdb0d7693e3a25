import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, unique } from '../helpers/factories';
import { appRegistry, insertKeyWithEveryScope } from '../helpers/demo-round-trip';
import { resultOf, rpcPost } from '../helpers/rpc';
import { procedures } from '../../src/procedures';
import { MAXIMUM_TIER } from '../../src/auth/principal';

// Issue 38, "Statements per write, counted": every write procedure (every POST procedure of the
// registry) is called once, through HTTP, with an input that does its full work, in a workspace
// with an enabled webhook endpoint subscribed to "*"; the statements it sends to PostgreSQL are
// counted and compared with the table in docs/architecture.md ("Statements per write").
// UPDATE_STATEMENTS_TABLE=1 rewrites the table from what was measured instead of failing;
// PRINT_STATEMENTS=1 prints every statement of every call.

const DOC = join(__dirname, '..', '..', 'docs', 'architecture.md');
const START = '<!-- statements-per-write:start -->';
const END = '<!-- statements-per-write:end -->';
const UPDATE = process.env.UPDATE_STATEMENTS_TABLE === '1';
const PRINT = process.env.PRINT_STATEMENTS === '1';

/** Transaction control, which is not counted: it is the same two statements around any transaction. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release)\b/i;

// The app-only procedures (exposed: false) are served too, so their handlers are reached through
// HTTP as the app reaches them; the key holds every scope any procedure asks for.
const ctx = createTestContext({ registry: appRegistry });

interface Statement {
  sql: string;
  /** knex's transaction id (`__knexTxId`); undefined for a statement outside any transaction. */
  txId: string | undefined;
}

/** What one request sent: every statement as knex reported it, and every statement the driver was given. */
interface Recording {
  statements: Statement[];
  driver: string[];
}

let recording: Recording | undefined;

// knex emits one `query` event per statement on the instance whose pool runs it, transactions'
// statements included (with their `__knexTxId`), BEGIN and COMMIT too; the hot reads' compiled
// statements, sent straight to a pooled connection, emit it as well (src/db/hot-reads.ts).
ctx.db.on('query', (data: { sql: string; __knexTxId?: string }) => {
  recording?.statements.push({ sql: data.sql, txId: data.__knexTxId });
});

// The driver's own count, to hold knex's events to it: a statement sent some other way would be
// missed by the events, and found here.
type DriverQuery = (this: pg.Client, ...args: unknown[]) => unknown;
const driverQuery = pg.Client.prototype.query as unknown as DriverQuery;
(pg.Client.prototype as unknown as { query: DriverQuery }).query = function query(this: pg.Client, ...args: unknown[]) {
  const config = args[0];
  recording?.driver.push(typeof config === 'string' ? config : (config as { text: string }).text);
  return driverQuery.apply(this, args);
};

afterAll(async () => {
  (pg.Client.prototype as unknown as { query: DriverQuery }).query = driverQuery;
  await ctx.close();
});

interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

/** Until no connection is lent and none is asked for: nothing of the last request is still running. */
async function poolIdle(): Promise<void> {
  const pool = (ctx.db.client as { pool?: TarnPool }).pool;
  const deadline = Date.now() + 10_000;
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!pool || (pool.numUsed() === 0 && pool.numPendingAcquires() === 0 && pool.numPendingCreates() === 0)) return;
    if (Date.now() > deadline) throw new Error('the pool never went idle');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let key: string;

/** One POST through HTTP, recording every statement from its sending until its answer and the pool is idle again. */
async function recorded(name: string, input: unknown) {
  await poolIdle();
  const rec: Recording = { statements: [], driver: [] };
  recording = rec;
  try {
    const res = await rpcPost(ctx.app, name, input, key);
    await poolIdle();
    return { res, rec };
  } finally {
    recording = undefined;
  }
}

/** The statements the authenticator runs (the key lookup on a cache miss, the throttled last_used_at), learnt in beforeAll. */
const authenticationSql = new Set<string>();

type Kind = 'transaction control' | 'authentication' | 'routing' | 'counted';

/** Where a workspace lives (src/db/nodes/workspace-nodes.ts): read once per workspace per process, not per write. */
const ROUTING = /get_shard_id_for_distribution_column|pg_dist_|from pg_extension/;

// A statement counts whether it has a `__knexTxId` or not: the checks that a referenced id is in
// the workspace run before the write's transaction, and some writes run without one
// (webhooks.delete, webhooks.rotateSecret, apiKeys.create's workspace check). Authentication is
// told apart by its text instead: the statements the calibration call in beforeAll ran.

function kindOf(statement: Statement): Kind {
  if (TRANSACTION_CONTROL.test(statement.sql)) return 'transaction control';
  if (statement.txId === undefined && authenticationSql.has(statement.sql)) return 'authentication';
  if (statement.txId === undefined && ROUTING.test(statement.sql)) return 'routing';
  return 'counted';
}

/** A setup call (not recorded), which must succeed; answers its output. */
async function call<T = any>(name: string, input: unknown): Promise<T> {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`setup: ${name} answered ${res.status}: ${res.text}`);
  return resultOf<T>(res);
}

let memberId: string;
let otherMemberId: string;

const DAY = 24 * 60 * 60 * 1000;
const ITEMS = [{ description: 'Consulting', quantity: 3, unitPrice: 1999 }, { description: 'Travel', quantity: 1, unitPrice: 4500 }];

async function newLead(overrides: Record<string, unknown> = {}): Promise<{ id: string; contactId: string }> {
  return call('leads.create', { name: unique('Lead'), phone: '+442079460123', ...overrides });
}
const newContact = () => call<{ id: string }>('contacts.create', { name: unique('Contact'), phones: ['+442079460124'] });
const newClient = (contactId?: string) => call<{ id: string }>('clients.create', { name: unique('Client'), ...(contactId ? { contactId } : {}) });
const newInvoice = async () => call<{ id: string }>('invoices.create', { clientId: (await newClient()).id, currency: 'GBP', dueDate: '2030-01-31', items: ITEMS });
const newTask = () => call<{ id: string }>('tasks.create', { title: unique('Task') });
const newEndpoint = () => call<{ id: string }>('webhooks.create', { url: 'https://hooks.example.com/other', events: ['lead.created'] });

interface Case {
  /** What the statements are, as the table says it: written from the statements the call runs now. */
  what: string;
  /** Makes what the call needs (through the API, not recorded) and answers its input. */
  input(): Promise<unknown>;
}

/** One case per write procedure: an input that does the procedure's full work. */
const CASES: Record<string, Case> = {
  'apiKeys.create': {
    what: 'workspace check, key secret, key',
    input: async () => ({ name: unique('key'), scopes: ['leads.read', 'tasks.read'], expiresAt: new Date(Date.now() + 30 * DAY) }),
  },
  'apiKeys.revoke': {
    what: 'key, cache-change NOTIFY',
    input: async () => ({ id: (await call<{ id: string }>('apiKeys.create', { name: unique('key'), scopes: ['leads.read'] })).id }),
  },
  'clients.create': {
    what: 'contact check, client, events, webhook deliveries',
    input: async () => ({
      name: unique('Client'), contactId: (await newContact()).id, company: 'Acme Ltd', email: 'Billing@Example.com', phone: '+442079460125', notes: 'Pays on time',
    }),
  },
  'clients.delete': {
    // A client with a lead and a task linked to it: both lose the link.
    what: 'lock, invoices check, client read, leads unlinked, their stored JSON, tasks unlinked, client, events, webhook deliveries',
    input: async () => {
      const client = await newClient((await newContact()).id);
      await call('leads.convert', { id: (await newLead()).id, clientId: client.id });
      await call('tasks.create', { title: unique('Task'), clientId: client.id });
      return { id: client.id };
    },
  },
  'clients.update': {
    what: 'contact check, lock, client, events, webhook deliveries',
    input: async () => ({
      id: (await newClient()).id, name: unique('Client'), contactId: (await newContact()).id, company: 'Acme Ltd', email: 'ap@example.com',
      phone: '+442079460126', notes: 'Net 30',
    }),
  },
  'contacts.create': {
    what: 'contact, events, webhook deliveries',
    input: async () => ({ name: unique('Contact'), phones: ['+442079460127', '+447400123127'], emails: ['Ana@Example.com', 'ana@work.example'], company: 'Acme Ltd' }),
  },
  'contacts.delete': {
    // A contact with a client linked to it, which loses the link.
    what: 'lock, leads check, contact read, clients unlinked, contact, events, webhook deliveries',
    input: async () => {
      const contact = await newContact();
      await newClient(contact.id);
      return { id: contact.id };
    },
  },
  'contacts.update': {
    // The contact of a lead: its person fields pass to the lead.
    what: "lock, contact, its leads' search copies, their stored JSON, events, webhook deliveries",
    input: async () => ({
      id: (await newLead()).contactId, name: unique('Contact'), phones: ['+442079460128', '+447400123128'], emails: ['new@example.com'], company: 'Beta Ltd',
    }),
  },
  'invoices.create': {
    what: 'client check, invoice, line items cleared, line items, invoice read, line items read, events, webhook deliveries',
    input: async () => ({ clientId: (await newClient()).id, currency: 'GBP', dueDate: '2030-01-31', items: ITEMS }),
  },
  'invoices.delete': {
    what: 'lock, invoice read, line items read, invoice, events, webhook deliveries',
    input: async () => ({ id: (await newInvoice()).id }),
  },
  'invoices.markPaid': {
    what: 'lock, invoice, invoice read, line items read, events, webhook deliveries',
    input: async () => {
      const { id } = await newInvoice();
      await call('invoices.send', { id });
      return { id, paidAt: new Date(Date.now() - DAY) };
    },
  },
  'invoices.send': {
    what: 'lock, invoice, invoice read, line items read, events, webhook deliveries',
    input: async () => ({ id: (await newInvoice()).id }),
  },
  'invoices.update': {
    what: 'client check, lock, invoice, line items cleared, line items, invoice read, line items read, events, webhook deliveries',
    input: async () => ({
      id: (await newInvoice()).id, clientId: (await newClient()).id, currency: 'EUR', dueDate: '2030-02-28',
      items: [...ITEMS, { description: 'Stamp', quantity: 1, unitPrice: 1 }],
    }),
  },
  'invoices.void': {
    what: 'lock, invoice, invoice read, line items read, events, webhook deliveries',
    input: async () => {
      const { id } = await newInvoice();
      await call('invoices.send', { id });
      return { id };
    },
  },
  'leads.assign': {
    what: 'member check, lead (locked and changed in one), stored JSON, counters, events, webhook deliveries',
    input: async () => ({ id: (await newLead()).id, assignedToId: memberId }),
  },
  'leads.convert': {
    // Without clientId: the client is made from the lead's contact.
    what: 'lead locked and read, client, lead, stored JSON, counters, events, webhook deliveries',
    input: async () => ({ id: (await newLead({ email: 'lead@example.com' })).id }),
  },
  'leads.create': {
    what: 'member check; contact, lead, stored JSON, counters, events and webhook deliveries (one statement, no transaction)',
    input: async () => ({ name: unique('Lead'), phone: '+442079460129', email: 'Lead@Example.com', status: 'CONTACTED', assignedToId: memberId }),
  },
  'leads.delete': {
    // A lead with a task linked to it, which loses the link.
    what: 'tasks unlinked, lead, counters, events, webhook deliveries',
    input: async () => {
      const lead = await newLead();
      await call('tasks.create', { title: unique('Task'), leadId: lead.id });
      return { id: lead.id };
    },
  },
  'leads.logCall': {
    what: 'lead (locked and changed in one), stored JSON, counters, call, events, webhook deliveries',
    input: async () => ({ id: (await newLead()).id, outcome: 'CONTACTED', notes: 'Call back on Thursday', nextCallAt: new Date(Date.now() + 2 * DAY) }),
  },
  'leads.update': {
    // The heaviest ordinary call: the contact's name and phones, an allowed status change, a new assignee, notes.
    what: 'member check, lead (locked and changed in one, with its search copies), contact, stored JSON, counters, events, webhook deliveries',
    input: async () => ({
      id: (await newLead({ status: 'CONTACTED', assignedToId: otherMemberId })).id,
      name: unique('Lead'), phones: ['+442079460130', '+447400123130'], status: 'QUALIFIED', assignedToId: memberId, notes: 'Wants the annual plan',
    }),
  },
  'organisation.update': {
    what: 'lock, workspace, cache-change NOTIFY',
    input: async () => ({ name: unique('Org'), phoneRegion: 'GB' }),
  },
  'tasks.complete': {
    what: 'lock, task, events, webhook deliveries',
    input: async () => ({ id: (await newTask()).id }),
  },
  'tasks.create': {
    what: 'lead, client and member checks, task, events, webhook deliveries',
    input: async () => ({
      title: unique('Task'), description: 'Send the pricing', dueAt: new Date(Date.now() + DAY), leadId: (await newLead()).id,
      clientId: (await newClient()).id, assignedToId: memberId,
    }),
  },
  'tasks.delete': {
    what: 'lock, task read, task, events, webhook deliveries',
    input: async () => ({ id: (await newTask()).id }),
  },
  'tasks.update': {
    // Every field, and DONE (which completes it).
    what: 'lead, client and member checks, lock, task, events, webhook deliveries',
    input: async () => ({
      id: (await newTask()).id, title: unique('Task'), description: 'Pricing sent', dueAt: new Date(Date.now() + DAY), leadId: (await newLead()).id,
      clientId: (await newClient()).id, assignedToId: memberId, status: 'DONE',
    }),
  },
  'webhooks.create': {
    what: "workspace's endpoints lock, endpoint count, endpoint",
    input: async () => ({ url: 'https://hooks.example.com/crm', events: ['lead.created', 'task.completed'], description: 'CRM sync' }),
  },
  'webhooks.delete': {
    what: 'endpoint (one statement, no transaction)',
    input: async () => ({ id: (await newEndpoint()).id }),
  },
  'webhooks.rotateSecret': {
    what: 'endpoint (one statement, no transaction)',
    input: async () => ({ id: (await newEndpoint()).id, expirePreviousInSeconds: 3600 }),
  },
  'webhooks.update': {
    what: 'lock, endpoint',
    input: async () => ({ id: (await newEndpoint()).id, url: 'https://hooks.example.com/moved', events: ['*'], description: 'Moved', enabled: true }),
  },
};

const WRITES: string[] = procedures.filter((p) => p.method === 'POST').map((p) => p.name).sort();

beforeAll(async () => {
  const ws = await createWorkspace(ctx.db, { tier: MAXIMUM_TIER });
  memberId = ws.member.id;
  otherMemberId = (await createMember(ctx.db, ws.org.id)).id;
  key = await insertKeyWithEveryScope(ctx.db, ws.org.id);
  // The authenticator's statements, from a call that stops right after authentication (no such
  // procedure) and is the key's first (its cache is cold, and last_used_at is written).
  const { res, rec } = await recorded('statementsPerWrite.noSuchProcedure', {});
  expect(res.status).toBe(404);
  expect(rec.statements.length).toBeGreaterThan(0);
  expect(rec.statements.filter((s) => s.txId !== undefined)).toEqual([]);
  for (const statement of rec.statements) authenticationSql.add(statement.sql);
  if (PRINT) console.log(`authentication:\n${rec.statements.map((s) => `  ${s.sql}`).join('\n')}`);
  // Webhooks on: every event a write records gets a delivery to this endpoint.
  await call('webhooks.create', { url: 'https://hooks.example.com/everything', events: ['*'], description: 'every event' });
});

describe('statements per write (docs/architecture.md, "Statements per write")', () => {
  it('has a case for every write procedure of the registry', () => {
    expect(WRITES.filter((name) => !(name in CASES))).toEqual([]);
    expect(Object.keys(CASES).filter((name) => !WRITES.includes(name))).toEqual([]);
  });

  it('each write runs the number of statements the table says', async () => {
    const measured = new Map<string, Count>();
    const printed = new Map<string, string>();
    for (const name of WRITES) {
      const write = CASES[name];
      if (!write) continue; // reported by the test above
      const input = await write.input();
      const { res, rec } = await recorded(name, input);
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
      // knex reported every statement the driver was given, and nothing else.
      expect({ name, driver: rec.driver.filter((sql) => !authenticationSql.has(sql)) })
        .toEqual({ name, driver: rec.statements.filter((s) => kindOf(s) !== 'authentication').map((s) => s.sql) });
      const counted = rec.statements.filter((s) => kindOf(s) === 'counted');
      measured.set(name, { inTransaction: counted.filter((s) => s.txId !== undefined).length, before: counted.filter((s) => s.txId === undefined).length });
      const lines = rec.statements.map((s) => `  ${kindOf(s) === 'counted' ? (s.txId ? 'tx ' : 'out') : '---'} ${s.sql.replace(/\s+/g, ' ').slice(0, 220)}`);
      printed.set(name, `${name}: ${counted.length}\n${lines.join('\n')}`);
      if (PRINT) console.log(printed.get(name));
    }
    const table = renderTable(measured);
    const doc = readFileSync(DOC, 'utf8');
    const documented = parseTable(tableBetweenMarkers(doc) ?? '');
    const changes = diff(documented, measured);
    if (changes.length > 0) {
      console.log(`statements per write, the table against this run:\n${changes.map((c) => `  ${c.line}\n${printed.get(c.name) ?? ''}`).join('\n')}`);
    }
    if (UPDATE) {
      writeFileSync(DOC, replaceTable(doc, table));
      return;
    }
    const grew = changes.filter((c) => c.kind === 'grew');
    const other = changes.filter((c) => c.kind !== 'grew');
    expect({
      grew: grew.map((c) => c.line),
      hint: grew.length > 0 ? 'a write runs more statements than docs/architecture.md says: find out why; if it must, update its description in this file and run with UPDATE_STATEMENTS_TABLE=1' : '',
    }).toEqual({ grew: [], hint: '' });
    expect({
      changed: other.map((c) => c.line),
      hint: other.length > 0 ? 'the table in docs/architecture.md is out of date: update the descriptions in this file and run with UPDATE_STATEMENTS_TABLE=1' : '',
    }).toEqual({ changed: [], hint: '' });
    // The descriptions too: the table is the one this file generates.
    expect(tableBetweenMarkers(doc)).toBe(table);
  }, 180_000);

  it('runs no deliveries statement in a workspace without an enabled webhook endpoint', async () => {
    const quiet = await createWorkspace(ctx.db, { tier: MAXIMUM_TIER });
    const keyWithEndpoints = key;
    key = await insertKeyWithEveryScope(ctx.db, quiet.org.id);
    try {
      const counted = async (name: string, input: unknown) => {
        const { res, rec } = await recorded(name, input);
        expect(res.status).toBe(200);
        return rec.statements.filter((s) => kindOf(s) === 'counted').map((s) => ({ inTransaction: s.txId !== undefined, deliveries: /webhook_deliveries/.test(s.sql) }));
      };
      // leads.create: its one statement (rows, events and their deliveries), which needs no transaction;
      // contacts.create: the contact, then its events, and no deliveries statement.
      expect(await counted('leads.create', { name: unique('Quiet'), phone: '+442079460125' })).toEqual([{ inTransaction: false, deliveries: true }]);
      expect(await counted('contacts.create', { name: unique('Quiet'), phones: ['+442079460126'] }))
        .toEqual([{ inTransaction: true, deliveries: false }, { inTransaction: true, deliveries: false }]);
    } finally {
      key = keyWithEndpoints;
    }
  });
});

/** A write's statements: those in its transaction, and those before it (input checks) or without one. */
interface Count {
  inTransaction: number;
  before: number;
}

function renderTable(measured: ReadonlyMap<string, Count>): string {
  const rows = [...measured].sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `| \`${name}\` | ${n.inTransaction} | ${n.before} | ${CASES[name]!.what} |`);
  return ['| procedure | in its transaction | before it, or without one | what they are |', '|---|---|---|---|', ...rows].join('\n');
}

function tableBetweenMarkers(text: string): string | undefined {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + START.length, end).trim();
}

function replaceTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} lacks the ${START} ... ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

/** The counts the table gives, by procedure. */
function parseTable(table: string): Map<string, Count> {
  const counts = new Map<string, Count>();
  for (const line of table.split('\n')) {
    const row = /^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|/.exec(line.trim());
    if (row) counts.set(row[1]!, { inTransaction: Number(row[2]), before: Number(row[3]) });
  }
  return counts;
}

interface Change {
  kind: 'new' | 'gone' | 'grew' | 'shrank';
  name: string;
  line: string;
}

const show = (n: Count) => `${n.inTransaction} in the transaction + ${n.before} before`;

function diff(documented: ReadonlyMap<string, Count>, measured: ReadonlyMap<string, Count>): Change[] {
  const names = [...new Set([...documented.keys(), ...measured.keys()])].sort();
  return names.flatMap((name): Change[] => {
    const was = documented.get(name);
    const now = measured.get(name);
    if (was && now && was.inTransaction === now.inTransaction && was.before === now.before) return [];
    if (was === undefined) return [{ kind: 'new', name, line: `${name}: not in the table, runs ${show(now!)}` }];
    if (now === undefined) return [{ kind: 'gone', name, line: `${name}: in the table (${show(was)}), no longer a write procedure` }];
    const grew = now.inTransaction > was.inTransaction || now.before > was.before;
    return [{ kind: grew ? 'grew' : 'shrank', name, line: `${name}: ${show(was)} -> ${show(now)}` }];
  });
}
