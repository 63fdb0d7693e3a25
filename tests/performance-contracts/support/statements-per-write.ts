import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createTestContext, createTestDb, type TestContext } from '../../helpers/test-app';
import { createWorkspace, createMember, unique } from '../../helpers/factories';
import { appRegistry, insertKeyWithEveryScope } from '../../helpers/demo-round-trip';
import { resultOf, rpcPost } from '../../helpers/rpc';
import { procedures } from '../../../src/procedures';
import { MAXIMUM_TIER } from '../../../src/auth/principal';

/**
 * Statements per write (issue 38; docs/architecture.md, "Statements per write"): every write
 * procedure (every POST procedure of the registry) is called once, through HTTP, with an input that
 * does its full work, in a workspace with an enabled webhook endpoint subscribed to "*"; the
 * statements it sends to PostgreSQL are counted. `npm run docs:statements`
 * (scripts/statements-table.ts) writes the table from this measurement; the contract test
 * (statements-per-write.test.ts) only compares. The descriptions of the table live here, in CASES.
 */

export const STATEMENTS_DOC = join(__dirname, '..', '..', '..', 'docs', 'architecture.md');
export const START = '<!-- statements-per-write:start -->';
export const END = '<!-- statements-per-write:end -->';
export const GENERATOR = 'npm run docs:statements';

/** Transaction control, which is not counted: it is the same two statements around any transaction. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|savepoint|release)\b/i;

export interface Statement {
  sql: string;
  /** knex's transaction id (`__knexTxId`); undefined for a statement outside any transaction. */
  txId: string | undefined;
}

/** What one request sent: every statement as knex reported it, and every statement the driver was given. */
export interface Recording {
  statements: Statement[];
  driver: string[];
}

interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

type Kind = 'transaction control' | 'authentication' | 'routing' | 'counted';

/** Where a workspace lives (src/db/nodes): read once per workspace per process, not per write. */
const ROUTING = /get_shard_id_for_distribution_column|pg_dist_|from pg_extension/;

/**
 * The app on a pool of its own whose statements are recorded two ways: knex's `query` event (one
 * per statement on the instance whose pool runs it, transactions' statements included with their
 * `__knexTxId`, BEGIN and COMMIT too; the hot reads' compiled statements, sent straight to a pooled
 * connection, emit it as well), and the driver's own count, to hold the events to it (a statement
 * sent some other way would be missed by the events, and found there). The driver's count comes
 * from a pg.Client subclass that this pool alone connects with: pg's prototype is left alone.
 */
export class StatementRecorder {
  private recording: Recording | undefined;
  private key = '';
  /** The statements the authenticator runs (the key lookup on a cache miss, the throttled last_used_at), learnt in start(). */
  private readonly authenticationSql = new Set<string>();
  readonly ctx: TestContext;

  private constructor() {
    const db = createTestDb();
    const recorder = this;
    class CountingClient extends pg.Client {
      override query(...args: unknown[]): any {
        const config = args[0];
        recorder.recording?.driver.push(typeof config === 'string' ? config : (config as { text: string }).text);
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
    }
    // knex's pg dialect makes its connections with `new this.driver.Client(...)`, the driver it
    // loaded at creation; its pool is still empty (min 0), so every connection is a CountingClient.
    (db.client as { driver: typeof pg }).driver = { ...pg, Client: CountingClient } as typeof pg;
    db.on('query', (data: { sql: string; __knexTxId?: string }) => {
      this.recording?.statements.push({ sql: data.sql, txId: data.__knexTxId });
    });
    // The app-only procedures (exposed: false) are served too, so their handlers are reached
    // through HTTP as the app reaches them; the key holds every scope any procedure asks for.
    this.ctx = createTestContext({ registry: appRegistry, db });
  }

  /** A recorder with its workspace, key, members and an endpoint for every event. */
  static async start(options: { print?: boolean } = {}): Promise<StatementRecorder> {
    const recorder = new StatementRecorder();
    try {
      await recorder.prepare(options.print === true);
    } catch (err) {
      await recorder.close();
      throw err;
    }
    return recorder;
  }

  private async prepare(print: boolean): Promise<void> {
    const ws = await createWorkspace(this.ctx.db, { tier: MAXIMUM_TIER });
    memberId = ws.member.id;
    otherMemberId = (await createMember(this.ctx.db, ws.org.id)).id;
    this.key = await insertKeyWithEveryScope(this.ctx.db, ws.org.id);
    // The authenticator's statements, from a call that stops right after authentication (no such
    // procedure) and is the key's first (its cache is cold, and last_used_at is written).
    const { res, rec } = await this.recorded('statementsPerWrite.noSuchProcedure', {});
    if (res.status !== 404) throw new Error(`calibration: expected 404, got ${res.status}: ${res.text}`);
    if (rec.statements.length === 0) throw new Error('calibration: authentication ran no statement, or none was recorded');
    if (rec.statements.some((s) => s.txId !== undefined)) throw new Error('calibration: authentication ran a statement in a transaction');
    for (const statement of rec.statements) this.authenticationSql.add(statement.sql);
    if (print) console.log(`authentication:\n${rec.statements.map((s) => `  ${s.sql}`).join('\n')}`);
    // Webhooks on: every event a write records gets a delivery to this endpoint.
    call = <T,>(name: string, input: unknown) => this.call<T>(name, input);
    await call('webhooks.create', { url: 'https://hooks.example.com/everything', events: ['*'], description: 'every event' });
  }

  close(): Promise<void> {
    return this.ctx.close();
  }

  /** Until no connection is lent and none is asked for: nothing of the last request is still running. */
  private async poolIdle(): Promise<void> {
    const pool = (this.ctx.db.client as { pool?: TarnPool }).pool;
    const deadline = Date.now() + 10_000;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!pool || (pool.numUsed() === 0 && pool.numPendingAcquires() === 0 && pool.numPendingCreates() === 0)) return;
      if (Date.now() > deadline) throw new Error('the pool never went idle');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** One POST through HTTP, recording every statement from its sending until its answer and the pool is idle again. */
  async recorded(name: string, input: unknown, key = this.key) {
    await this.poolIdle();
    const rec: Recording = { statements: [], driver: [] };
    this.recording = rec;
    try {
      const res = await rpcPost(this.ctx.app, name, input, key);
      await this.poolIdle();
      return { res, rec };
    } finally {
      this.recording = undefined;
    }
  }

  // A statement counts whether it has a `__knexTxId` or not: the checks that a referenced id is in
  // the workspace run before the write's transaction, and some writes run without one
  // (webhooks.delete, webhooks.rotateSecret, apiKeys.create's workspace check). Authentication is
  // told apart by its text instead: the statements the calibration call in start() ran.
  kindOf(statement: Statement): Kind {
    if (TRANSACTION_CONTROL.test(statement.sql)) return 'transaction control';
    if (statement.txId === undefined && this.authenticationSql.has(statement.sql)) return 'authentication';
    if (statement.txId === undefined && ROUTING.test(statement.sql)) return 'routing';
    return 'counted';
  }

  /** A setup call (not recorded), which must succeed; answers its output. */
  async call<T = any>(name: string, input: unknown): Promise<T> {
    const res = await rpcPost(this.ctx.app, name, input, this.key);
    if (res.status !== 200) throw new Error(`setup: ${name} answered ${res.status}: ${res.text}`);
    return resultOf<T>(res);
  }

  /**
   * Calls every write procedure once with its case's input and counts its statements. Throws when
   * a call fails or when knex's events and the driver's count disagree.
   */
  async measureAll(options: { print?: boolean } = {}): Promise<Measurement> {
    const counts = new Map<string, Count>();
    const printed = new Map<string, string>();
    for (const name of WRITES) {
      const write = CASES[name];
      if (!write) throw new Error(`${name} is a write procedure without a case in ${__filename}`);
      const input = await write.input();
      const { res, rec } = await this.recorded(name, input);
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
      // knex reported every statement the driver was given, and nothing else.
      const driver = rec.driver.filter((sql) => !this.authenticationSql.has(sql));
      const events = rec.statements.filter((s) => this.kindOf(s) !== 'authentication').map((s) => s.sql);
      if (JSON.stringify(driver) !== JSON.stringify(events)) {
        throw new Error(`${name}: knex's query events and the driver's statements differ:\n  events: ${JSON.stringify(events)}\n  driver: ${JSON.stringify(driver)}`);
      }
      const counted = rec.statements.filter((s) => this.kindOf(s) === 'counted');
      counts.set(name, { inTransaction: counted.filter((s) => s.txId !== undefined).length, before: counted.filter((s) => s.txId === undefined).length });
      const lines = rec.statements.map((s) => `  ${this.kindOf(s) === 'counted' ? (s.txId ? 'tx ' : 'out') : '---'} ${s.sql.replace(/\s+/g, ' ').slice(0, 220)}`);
      printed.set(name, `${name}: ${counted.length}\n${lines.join('\n')}`);
      if (options.print) console.log(printed.get(name));
    }
    return { counts, printed };
  }
}

export interface Measurement {
  counts: Map<string, Count>;
  /** Each call's statements, one line each, for a failure's message. */
  printed: Map<string, string>;
}

/** The recorder's setup call, for the cases' inputs (set in start()). */
let call: <T = any>(name: string, input: unknown) => Promise<T> = () => {
  throw new Error('StatementRecorder.start() first');
};

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
export const CASES: Record<string, Case> = {
  'apiKeys.create': {
    what: 'workspace check, key secret, key',
    input: async () => ({ name: unique('key'), scopes: ['leads.read', 'tasks.read'], expiresAt: new Date(Date.now() + 30 * DAY) }),
  },
  'apiKeys.revoke': {
    what: 'key, cache-change NOTIFY',
    input: async () => ({ id: (await call<{ id: string }>('apiKeys.create', { name: unique('key'), scopes: ['leads.read'] })).id }),
  },
  'apiKeys.roll': {
    // Rolled once already, so the older previous secret is removed too: the full work.
    what: 'key locked, older previous secret removed, new secret, key, cache-change NOTIFY',
    input: async () => {
      const { id } = await call<{ id: string }>('apiKeys.create', { name: unique('key'), scopes: ['leads.read'] });
      await call('apiKeys.roll', { id, expirePreviousInSeconds: 60 });
      return { id, expirePreviousInSeconds: 60 };
    },
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
  'clients.restore': {
    // A client whose delete unlinked a lead and a task: both are linked again.
    what: 'trash row taken, contact and externalId checks, client, leads linked again, their stored JSON, tasks linked again, client read, events, webhook deliveries',
    input: async () => {
      const client = await newClient((await newContact()).id);
      await call('leads.convert', { id: (await newLead()).id, clientId: client.id });
      await call('tasks.create', { title: unique('Task'), clientId: client.id });
      await call('clients.delete', { id: client.id });
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
  'contacts.restore': {
    what: 'trash row taken, externalId check, contact, clients linked again, contact read, events, webhook deliveries',
    input: async () => {
      const contact = await newContact();
      await newClient(contact.id);
      await call('contacts.delete', { id: contact.id });
      return { id: contact.id };
    },
  },
  'contacts.erase': {
    // A person with a lead that has a call, a client linked and an idempotent answer: every step has rows.
    what: "lock, leads lock, trashed leads, earlier leads (events), tasks and clients unlinked, calls, stored JSON, leads, counters, contact, trashed contact and leads, trashed clients unlinked, history, events reduced, attempts' excerpts, idempotent answers, import errors, audit row, events, webhook deliveries",
    input: async () => {
      const lead = await newLead();
      await call('leads.logCall', { id: lead.id, outcome: 'CONTACTED', notes: 'Private' });
      await newClient(lead.contactId);
      return { id: lead.contactId };
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
  'invoices.restore': {
    what: 'trash row taken, client check, invoice, line items, invoice read, line items read, events, webhook deliveries',
    input: async () => {
      const { id } = await newInvoice();
      await call('invoices.delete', { id });
      return { id };
    },
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
  'leads.upsert': {
    // The heavier way: the external id is held, so the create's statement writes nothing and the lead is changed.
    what: 'member check; the create (one statement: nothing written, the id is held; it answers the lead holding it), then that version changed in one statement: the lead and its contact, stored JSON, counters, events, webhook deliveries',
    input: async () => {
      const externalId = unique('crm');
      await call('leads.upsert', { externalId, name: unique('Lead'), phone: '+442079460130', assignedToId: otherMemberId });
      return { externalId, name: unique('Lead'), phone: '+442079460131', status: 'CONTACTED', assignedToId: memberId };
    },
  },
  'leads.delete': {
    // A lead with a task linked to it, which loses the link.
    what: 'tasks unlinked, lead into the trash with its calls (one statement), counters, events, webhook deliveries',
    input: async () => {
      const lead = await newLead();
      await call('tasks.create', { title: unique('Task'), leadId: lead.id });
      return { id: lead.id };
    },
  },
  'leads.restore': {
    // A lead with a call, assigned, whose delete unlinked a task.
    what: 'trash row taken, contact, member and externalId checks, lead, calls, search copies, tasks linked again, stored JSON, lead read, counters, events, webhook deliveries',
    input: async () => {
      const lead = await newLead({ assignedToId: memberId, externalId: unique('crm') });
      await call('leads.logCall', { id: lead.id, outcome: 'BUSY' });
      await call('tasks.create', { title: unique('Task'), leadId: lead.id });
      await call('leads.delete', { id: lead.id });
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
  'tasks.restore': {
    what: 'trash row taken, lead, client and member checks, task, task read, events, webhook deliveries',
    input: async () => {
      const { id } = await newTask();
      await call('tasks.delete', { id });
      return { id };
    },
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
  'webhooks.redeliver': {
    // A range of one event (the lead.created of the lead made here): what every range pays, then one chunk.
    what: 'endpoint and owner key, start of the range, one chunk of deliveries (each its own statement, no transaction)',
    input: async () => {
      const { id } = await newEndpoint();
      await newLead();
      return { id, since: new Date(Date.now() - 60_000) };
    },
  },
  'webhooks.sendTestEvent': {
    // Writes nothing: a POST for its outbound request. Port 9 on loopback refuses at once.
    what: 'endpoint URL and secrets; nothing written',
    input: async () => ({ id: (await call<{ id: string }>('webhooks.create', { url: 'http://127.0.0.1:9/hooks', events: ['lead.created'] })).id }),
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

/** Every write procedure of the registry. */
// imports.cancel steers a job (one update of its row) and needs an uploaded file to act on: left
// out in words, tested through HTTP in tests/integration/imports-procedures.test.ts.
export const WRITES: string[] = procedures.filter((p) => p.method === 'POST' && p.name !== 'imports.cancel').map((p) => p.name).sort();

/** A write's statements: those in its transaction, and those before it (input checks) or without one. */
export interface Count {
  inTransaction: number;
  before: number;
}

export function renderTable(measured: ReadonlyMap<string, Count>): string {
  const rows = [...measured].sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `| \`${name}\` | ${n.inTransaction} | ${n.before} | ${CASES[name]!.what} |`);
  return ['| procedure | in its transaction | before it, or without one | what they are |', '|---|---|---|---|', ...rows].join('\n');
}

export function tableBetweenMarkers(text: string): string | undefined {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + START.length, end).trim();
}

export function replaceTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${STATEMENTS_DOC} lacks the ${START} ... ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

/** The counts the table gives, by procedure. */
export function parseTable(table: string): Map<string, Count> {
  const counts = new Map<string, Count>();
  for (const line of table.split('\n')) {
    const row = /^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|/.exec(line.trim());
    if (row) counts.set(row[1]!, { inTransaction: Number(row[2]), before: Number(row[3]) });
  }
  return counts;
}

export interface Change {
  kind: 'new' | 'gone' | 'grew' | 'shrank';
  name: string;
  line: string;
}

const show = (n: Count) => `${n.inTransaction} in the transaction + ${n.before} before`;

export function diff(documented: ReadonlyMap<string, Count>, measured: ReadonlyMap<string, Count>): Change[] {
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

/** The table now in docs/architecture.md. */
export function documentedTable(): string | undefined {
  return tableBetweenMarkers(readFileSync(STATEMENTS_DOC, 'utf8'));
}
