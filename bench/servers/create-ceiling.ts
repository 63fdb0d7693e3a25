import { randomBytes } from 'node:crypto';
import express from 'express';
import { serverSetup } from './server-env';

// The bare create ceiling for leads.create: Express 5, knex and plain SQL, nothing of the service
// (no auth, validation, phone normalisation, data modules, counters, stored JSON, envelope,
// helmet or logging). POST /leads/:orgId with {name, phone} inserts, in one transaction, a
// contact, its lead and one event row into tables of its own (ceiling_*, made at start), each
// statement named and prepared as the service's are. The lead table carries the real leads
// table's list-order indexes (migrations 20261123120100 and 20261123150200) and its trigram
// search index on a lowercased search text (20261206120000), so each insert updates as many
// order indexes and one GIN index, as the real lead's does; the ids are the service's length.
const { db, port, host } = serverSetup();

const SCHEMA = `
  create extension if not exists pg_trgm;
  create extension if not exists btree_gin;
  create table if not exists ceiling_contacts (
    org_id text not null,
    id text not null,
    name text not null,
    phones text[] not null default '{}',
    emails text[] not null default '{}',
    company text,
    created_at timestamptz(3) not null default now(),
    updated_at timestamptz(3) not null default now(),
    primary key (org_id, id)
  );
  create table if not exists ceiling_leads (
    org_id text not null,
    id text not null,
    contact_id text not null,
    status text not null default 'NOT_CONTACTED',
    source text,
    notes text,
    next_call_at timestamptz(3),
    assigned_to_id text,
    client_id text,
    search_lower text not null,
    created_at timestamptz(3) not null default now(),
    updated_at timestamptz(3) not null default now(),
    primary key (org_id, id),
    foreign key (org_id, contact_id) references ceiling_contacts (org_id, id)
  );
  create index if not exists ceiling_leads_org_order_idx on ceiling_leads (org_id, next_call_at, created_at desc, id desc);
  create index if not exists ceiling_leads_org_status_order_idx on ceiling_leads (org_id, status, next_call_at, created_at desc, id desc);
  create index if not exists ceiling_leads_org_assignee_order_idx on ceiling_leads (org_id, assigned_to_id, next_call_at, created_at desc, id desc);
  create index if not exists ceiling_leads_org_unassigned_order_idx on ceiling_leads (org_id, next_call_at, created_at desc, id desc)
    where assigned_to_id is null;
  create index if not exists ceiling_leads_org_status_unassigned_order_idx on ceiling_leads (org_id, status, next_call_at, created_at desc, id desc)
    where assigned_to_id is null;
  create index if not exists ceiling_leads_org_search_trgm_idx on ceiling_leads using gin (org_id, search_lower gin_trgm_ops)
    with (gin_pending_list_limit = 512);
  create table if not exists ceiling_events (
    org_id text not null,
    id text not null,
    seq bigint generated always as identity,
    type text not null,
    object_id text,
    data jsonb not null,
    created_at timestamptz(3) not null default now(),
    primary key (org_id, id)
  );
`;

const INSERT_CONTACT = `insert into ceiling_contacts (org_id, id, name, phones) values (?, ?, ?, array[?::text])
  returning id, name, phones, emails, company, created_at, updated_at`;
const INSERT_LEAD = `insert into ceiling_leads (org_id, id, contact_id, search_lower) values (?, ?, ?, ?)
  returning id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id, created_at, updated_at`;
const INSERT_EVENT = `insert into ceiling_events (org_id, id, type, object_id, data) values (?, ?, 'lead.created', ?, ?::jsonb)`;

/** A prefixed id of the service's length (`lead_` and 22 characters). */
const idOf = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

const app = express();
app.use(express.json());
app.post('/leads/:orgId', async (req, res) => {
  const orgId = req.params.orgId;
  const { name, phone } = req.body as { name: string; phone: string };
  const lead = await db.transaction(async (trx) => {
    const contact = (await trx.raw(INSERT_CONTACT, [orgId, idOf('con'), name, phone]).options({ name: 'ceiling_insert_contact' })).rows[0];
    const row = (await trx.raw(INSERT_LEAD, [orgId, idOf('lead'), contact.id, `${name}\u001f${phone}`.toLowerCase()])
      .options({ name: 'ceiling_insert_lead' })).rows[0];
    const lead = { id: row.id, name: contact.name, phones: contact.phones, emails: contact.emails, company: contact.company, contactId: row.contact_id,
      source: row.source, status: row.status, notes: row.notes, nextCallAt: row.next_call_at, createdAt: row.created_at, updatedAt: row.updated_at,
      assignedToId: row.assigned_to_id, clientId: row.client_id };
    await trx.raw(INSERT_EVENT, [orgId, idOf('evt'), lead.id, JSON.stringify(lead)]).options({ name: 'ceiling_insert_event' });
    return lead;
  });
  res.json(lead);
});

db.raw(SCHEMA).then(
  () => app.listen(port, host),
  (err: Error) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
