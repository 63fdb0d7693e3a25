import request from 'supertest';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import type { Db } from '../../src/db/knex';
import * as membersQueries from '../../src/db/members';
import { issueApiKey } from '../../src/auth/api-keys';
import { procedures } from '../../src/procedures';
import { inputJsonSchema, type JsonSchema } from '../../src/openapi/json-schema';
import { createOrg } from './factories';
import { resultOf, rpcPost } from './rpc';

/** Every scope some procedure requires, app-only ones included (for an app that exposes those too). */
export const EVERY_PROCEDURE_SCOPE: ReadonlySet<string> = new Set(procedures.map((p) => p.scope));

/** A workspace holding one record of every kind, each name, email and note carrying `marker`. */
export interface FullWorkspace {
  orgId: string;
  /** Lower case (emails are stored lowercased), in every text field of the workspace's records. */
  marker: string;
  /** Digits of the workspace's phone numbers, unique to it. */
  phoneDigits: string;
  memberId: string;
  keyId: string;
  key: string;
  contactId: string;
  clientId: string;
  leadId: string;
  callId: string;
  taskId: string;
  invoiceId: string;
  webhookId: string;
  /** A queued dry-run import of one row (no runner runs in these tests). */
  importId: string;
}

async function call(app: Express, key: string, name: string, input: unknown): Promise<any> {
  const res = await rpcPost(app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return resultOf(res);
}

/**
 * A BUSINESS workspace with a member, a key holding every scope, a contact, a client linked to
 * it, a lead assigned to the member, a call logged on the lead, a task linked to all three and a
 * DRAFT invoice with two lines, and a webhook endpoint on lead.created (made last, so it has no
 * deliveries). Records are made through the API, as an integrator would.
 */
export async function createFullWorkspace(app: Express, db: Db, label: string, phone: string): Promise<FullWorkspace> {
  const marker = `${label}${randomBytes(5).toString('hex')}`.toLowerCase();
  const org = await createOrg(db, { tier: 'BUSINESS' });
  const member = await membersQueries.create(db, org.id, { name: `${marker} member`, email: `${marker}.member@example.com`, permissions: ['DEVELOPER'] });
  const issued = await issueApiKey(db, EVERY_PROCEDURE_SCOPE, {
    orgId: org.id, memberId: member.id, name: `${marker} key`, scopes: [...EVERY_PROCEDURE_SCOPE],
  });
  const key = issued.key;
  const contact = await call(app, key, 'contacts.create', { name: `${marker} contact`, phones: [phone], emails: [`${marker}.contact@example.com`], company: `${marker} Ltd` });
  const client = await call(app, key, 'clients.create', { name: `${marker} client`, contactId: contact.id, notes: `${marker} client notes` });
  const lead = await call(app, key, 'leads.create', {
    name: `${marker} lead`, phone, email: `${marker}.lead@example.com`, company: `${marker} Lead Co`, notes: `${marker} lead notes`, assignedToId: member.id,
  });
  const logged = await call(app, key, 'leads.logCall', { id: lead.id, outcome: 'NO_ANSWER', notes: `${marker} call notes` });
  const task = await call(app, key, 'tasks.create', {
    title: `${marker} task`, description: `${marker} task notes`, leadId: lead.id, clientId: client.id, assignedToId: member.id,
  });
  const invoice = await call(app, key, 'invoices.create', {
    clientId: client.id, currency: 'GBP', dueDate: '2027-01-31',
    items: [{ description: `${marker} line one`, quantity: 2, unitPrice: 1500 }, { description: `${marker} line two`, quantity: 1, unitPrice: 999 }],
  });
  const webhook = await call(app, key, 'webhooks.create', { url: `https://${marker}.example.com/hooks`, events: ['lead.created'], description: `${marker} webhook` });
  const uploaded = await request(app).post('/api/v1/imports').query({ resource: 'leads', mode: 'create', dryRun: 'true' })
    .set('Authorization', `Bearer ${key}`).set('Content-Type', 'text/csv').send(Buffer.from(`name,phone\n${marker} imported,${phone}\n`));
  if (uploaded.status !== 202) throw new Error(`import upload answered ${uploaded.status}: ${uploaded.text}`);
  return {
    orgId: org.id, marker, phoneDigits: phone.replace(/\D/g, ''), memberId: member.id, keyId: issued.id, key,
    contactId: contact.id, clientId: client.id, leadId: lead.id, callId: logged.call.id, taskId: task.id, invoiceId: invoice.id, webhookId: webhook.id,
    importId: uploaded.body.id,
  };
}

/** Tables holding workspace rows: every table with an `org_id` column, so a new table is covered too. */
let tables: Promise<string[]> | undefined;
function workspaceTables(db: Db): Promise<string[]> {
  tables ??= db('information_schema.columns')
    .select('table_name')
    .whereRaw('table_schema = current_schema()')
    .andWhere({ column_name: 'org_id' })
    .orderBy('table_name')
    .then((rows: { table_name: string }[]) => rows.map((r) => r.table_name));
  return tables;
}

/** Bookkeeping that changes whenever a key is used, not the workspace's data. */
const VOLATILE_COLUMNS = ['last_used_at'];

export type WorkspaceSnapshot = Record<string, Record<string, unknown>[]>;

/** Every row of the workspace (its organisations row included), table by table, in a stable order; one query. */
export async function snapshotWorkspace(db: Db, orgId: string): Promise<WorkspaceSnapshot> {
  const names = await workspaceTables(db);
  const parts = ['select \'organisations\' as t, to_jsonb(x) as r from organisations x where x.id = ?'];
  for (const _ of names) parts.push('select ? as t, to_jsonb(x) as r from ?? x where x.org_id = ?');
  const bindings = [orgId, ...names.flatMap((name) => [name, name, orgId])];
  const result = await db.raw(parts.join(' union all '), bindings);
  const snapshot: WorkspaceSnapshot = Object.fromEntries(['organisations', ...names].map((name) => [name, []]));
  for (const { t, r } of result.rows as { t: string; r: Record<string, unknown> }[]) {
    const row = { ...r };
    for (const column of VOLATILE_COLUMNS) delete row[column];
    snapshot[t]!.push(row);
  }
  for (const rows of Object.values(snapshot)) rows.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  return snapshot;
}

/** The ids of every row of a snapshot (`id` and `*_id` columns). */
export function idsIn(snapshot: WorkspaceSnapshot): Set<string> {
  const ids = new Set<string>();
  for (const rows of Object.values(snapshot)) {
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if ((column === 'id' || column.endsWith('_id')) && typeof value === 'string') ids.add(value);
      }
    }
  }
  return ids;
}

/** Names of id fields (`id`, `*Id`) anywhere in a procedure's input, as paths (`items[].productId`). */
export function idFieldsOf(schema: Parameters<typeof inputJsonSchema>[0]): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (node === null || typeof node !== 'object') return;
    const json = node as JsonSchema;
    for (const [name, inner] of Object.entries((json.properties ?? {}) as Record<string, unknown>)) {
      const at = path === '' ? name : `${path}.${name}`;
      // externalId is the caller's own id for a record, a value it sets, not a link to another record.
      if (name === 'id' || (/[a-z]Id$/.test(name) && name !== 'externalId')) found.add(at);
      walk(inner, at);
    }
    if (json.items) walk(json.items, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const branch of (json[key] ?? []) as unknown[]) walk(branch, path);
    }
    if (json.additionalProperties && typeof json.additionalProperties === 'object') walk(json.additionalProperties, `${path}.*`);
  };
  walk(inputJsonSchema(schema), '');
  return [...found].sort();
}
