import type { Express } from 'express';
import type { Db } from '../../src/db/knex';
import { procedures } from '../../src/procedures';
import { createRegistry, type AnyProcedure } from '../../src/rpc/registry';
import { MAXIMUM_TIER } from '../../src/auth/principal';
import * as apiKeysQueries from '../../src/db/api-keys';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';
import { newId } from '../../src/domain/ids';
import { TABLES } from '../../src/db/tables';
import { errorOf, resultOf, rpcGet, rpcPost } from './rpc';

export type Row = Record<string, any>;

/**
 * The service's procedures with the app-only ones exposed as well, so their handlers are reached
 * through HTTP as the app reaches them (as app-only-procedures.test.ts does): organisation.update
 * is the only way to write a workspace's own settings.
 */
export const appRegistry = createRegistry(procedures.map((p) => (p.exposed ? p : { ...p, exposed: true })));

const byName = new Map<string, AnyProcedure>(procedures.map((p) => [p.name, p]));

/** Routers with a procedure that writes a record in place (`<router>.update` or `<router>.changeStatus`). */
export function routersWithUpdate(): string[] {
  const writes = procedures.filter((p) => /\.(update|changeStatus)$/.test(p.name));
  return [...new Set(writes.map((p) => p.name.split('.')[0]!))].sort();
}

/** Calls with one key; a read that is not a 200 throws with the error it answered. */
export interface Caller {
  read(name: string, input: unknown): Promise<Row>;
  write(name: string, input: unknown): Promise<{ status: number; body: any }>;
}

export function callerFor(app: Express, key: string): Caller {
  return {
    async read(name, input) {
      const procedure = byName.get(name);
      const res = procedure?.method === 'POST' ? await rpcPost(app, name, input, key) : await rpcGet(app, name, input, key);
      if (res.status !== 200) throw new Error(`${name} ${JSON.stringify(input)} answered ${res.status}: ${JSON.stringify(errorOf(res))}`);
      return resultOf(res);
    },
    write: (name, input) => rpcPost(app, name, input, key).then((res) => ({ status: res.status, body: res.body })),
  };
}

/** How a router's records are read, and written back through its update procedure. */
export interface RoundTrip {
  /** The table its records live in. */
  table: string;
  update: string;
  read(call: Caller, id: string): Promise<Row>;
  /** Update-input fields that are not the record's field of the same name, converted from the record. */
  convert?: Record<string, (record: Row) => unknown>;
  /** The record as compared before and after, without what any write rightly changes (updatedAt always goes). */
  comparable?(record: Row): Row;
}

const byId = (name: string) => (call: Caller, id: string) => call.read(name, { id });

/** One entry per router with an update procedure: the test fails for a router without one. */
export const ROUND_TRIPS: Record<string, RoundTrip> = {
  leads: { table: TABLES.leads, update: 'leads.update', read: byId('leads.getById') },
  contacts: { table: TABLES.contacts, update: 'contacts.update', read: byId('contacts.getById') },
  clients: { table: TABLES.clients, update: 'clients.update', read: byId('clients.getById') },
  tasks: { table: TABLES.tasks, update: 'tasks.update', read: byId('tasks.getById') },
  invoices: {
    table: TABLES.invoices,
    update: 'invoices.update',
    read: byId('invoices.getById'),
    convert: { items: (invoice) => invoice.items.map(({ description, quantity, unitPrice }: Row) => ({ description, quantity, unitPrice })) },
    // `items` replaces every line, so the lines come back with new ids.
    comparable: (invoice) => ({ ...invoice, items: invoice.items.map(({ id: _id, ...line }: Row) => line) }),
  },
  webhooks: { table: TABLES.webhookEndpoints, update: 'webhooks.update', read: byId('webhooks.getById') },
  organisation: {
    table: TABLES.organisations,
    update: 'organisation.update',
    // No procedure reads the workspace: an update naming no field changes nothing and answers it.
    read: (call) => call.read('organisation.update', {}),
  },
};

/**
 * Tables the seed may fill whose rows no procedure writes in place; each with the reason. A seeded
 * table in neither this list nor ROUND_TRIPS fails the test until it is placed in one of them.
 */
export const NOT_UPDATED_IN_PLACE: Record<string, string> = {
  [TABLES.orgMembers]: 'members are managed in the app; the API only reads them (orgMembers.getAll, getById)',
  [TABLES.apiKeys]: 'keys are issued, revoked (apiKeys.revoke) and rolled (apiKeys.roll: a new secret, which cannot be written back as it was)',
  [TABLES.apiKeySecrets]: "each key's hashes and owner, written with the key or a roll, never changed",
  [TABLES.leadCounts]: 'counters kept by the leads module on every lead write',
  [TABLES.leadJson]: "each lead's stored JSON, kept by the leads module on lead and contact writes",
  [TABLES.leadCalls]: 'calls are facts about the past: logged, never changed',
  [TABLES.invoiceLineItems]: "an invoice's lines: written whole through invoices.update (items)",
  [TABLES.events]: 'events are recorded by writes, never changed',
};

/** The update input that writes `record` back as it is: every field the update takes, from the record. */
export function updateInputOf(trip: RoundTrip, record: Row): Row {
  const procedure = byName.get(trip.update);
  const shape = (procedure?.input as { shape?: Row } | undefined)?.shape;
  if (!shape) throw new Error(`${trip.update}: no such procedure, or its input is not an object schema`);
  const input: Row = {};
  for (const field of Object.keys(shape)) {
    if (field === 'expectedUpdatedAt') input[field] = record.updatedAt;
    else if (trip.convert?.[field]) input[field] = trip.convert[field](record);
    else if (field in record) input[field] = record[field];
    else throw new Error(`${trip.update} takes "${field}", which the record read back has not: say in ROUND_TRIPS how to convert it`);
  }
  return input;
}

/** The record without updatedAt (every write moves it), as the round trip compares it. */
export function comparableOf(trip: RoundTrip, record: Row): Row {
  const { updatedAt: _updatedAt, ...rest } = trip.comparable ? trip.comparable(record) : record;
  return rest;
}

/** How many rows each table holds for the given workspaces (tables with an org_id column, and organisations); views are not tables. */
export async function workspaceRowCounts(db: Db, orgIds: string[]): Promise<Map<string, number>> {
  const tables: string[] = (await db.raw(
    `select c.table_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = current_schema() and c.column_name = 'org_id' and t.table_type = 'BASE TABLE'
     order by c.table_name`,
  )).rows.map((r: { table_name: string }) => r.table_name);
  const counts = new Map<string, number>();
  const countOf = async (table: string, column: string) => {
    const [row] = await db(table).whereIn(column, orgIds).count<{ n: string }[]>({ n: '*' });
    return Number(row?.n ?? 0);
  };
  counts.set(TABLES.organisations, await countOf(TABLES.organisations, 'id'));
  for (const table of tables) counts.set(table, await countOf(table, 'org_id'));
  return new Map([...counts].filter(([, n]) => n > 0));
}

/** The ids of a workspace's records in `table`. */
export async function recordIds(db: Db, table: string, orgId: string): Promise<string[]> {
  const column = table === TABLES.organisations ? 'id' : 'org_id';
  return db(table).where(column, orgId).orderBy('id').pluck('id');
}

/** A key with every scope any procedure asks for, app-only ones included, written straight to the table (issueApiKey refuses those). */
export async function insertKeyWithEveryScope(db: Db, orgId: string): Promise<string> {
  const secret = generateApiKeySecret();
  await apiKeysQueries.insert(db, orgId, {
    id: newId('key'), memberId: null, name: 'demo round trip', prefix: secret.prefix, secretHash: secret.hash,
    scopes: [...new Set(procedures.map((p) => p.scope))], expiresAt: null,
  });
  return secret.secret;
}

/**
 * Runs `fn` with a caller for the workspace. The action endpoints serve the maximum tier only, so
 * a workspace below it (the demo's "Corner Shop") is lifted to it for the call and put back after:
 * its records must still be valid should it upgrade.
 */
export async function withWorkspaceCaller<T>(db: Db, app: Express, orgId: string, fn: (call: Caller) => Promise<T>): Promise<T> {
  const { tier } = await db(TABLES.organisations).where({ id: orgId }).first('tier');
  if (tier !== MAXIMUM_TIER) await db(TABLES.organisations).where({ id: orgId }).update({ tier: MAXIMUM_TIER });
  try {
    // A new key per call: the key cache holds the workspace's tier as first read.
    return await fn(callerFor(app, await insertKeyWithEveryScope(db, orgId)));
  } finally {
    if (tier !== MAXIMUM_TIER) await db(TABLES.organisations).where({ id: orgId }).update({ tier });
  }
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}
