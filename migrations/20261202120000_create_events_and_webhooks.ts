import type { Knex } from 'knex';

// The transactional outbox: every write inserts its events (and one delivery row per subscribed
// webhook endpoint) in its own transaction, so a rolled-back change leaves neither.
//
// Order. `seq` is handed out when the row is inserted, but transactions commit in another order,
// so a reader paging by `seq` alone could pass an event whose transaction commits later. `txid`
// (the writing transaction's id) fixes that: readers take only events of transactions older than
// every transaction still running (pg_snapshot_xmin), in (txid, seq) order; anything committed
// later has a txid at least that xmin, so it sorts after whatever was already read.
//
// Deliveries are claimed with a lease (`locked_until`, `claim_token`), not a transaction held open
// during the HTTP request: a killed worker's claim simply expires, and a slow receiver pins no
// database connection (the embedded database has exactly one).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table events (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      seq bigint generated always as identity,
      txid xid8 not null default pg_current_xact_id(),
      type text not null,
      actor_kind text not null,
      actor_id text not null,
      object_id text,
      data jsonb not null,
      created_at timestamptz(3) not null default now(),
      primary key (org_id, id)
    );
    -- Both orders of events.getAll (catch-up ascending, pages newest first) read this one index.
    create index events_org_order_idx on events (org_id, txid, seq);
    create index events_created_idx on events (created_at);

    create table webhook_endpoints (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      url text not null,
      description text,
      events text[] not null,
      enabled boolean not null default true,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz(3),
      owner_kind text not null,
      owner_id text not null,
      read_scopes text[] not null,
      failing_since timestamptz(3),
      disabled_reason text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id)
    );
    create index webhook_endpoints_org_created_idx on webhook_endpoints (org_id, created_at desc, id);

    create table webhook_deliveries (
      org_id text not null,
      id text not null,
      endpoint_id text not null,
      event_id text not null,
      event_seq bigint not null,
      object_id text,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz(3) not null default now(),
      locked_until timestamptz(3),
      claim_token text,
      created_at timestamptz(3) not null default now(),
      completed_at timestamptz(3),
      primary key (org_id, id),
      foreign key (org_id, endpoint_id) references webhook_endpoints (org_id, id) on delete cascade,
      foreign key (org_id, event_id) references events (org_id, id) on delete cascade
    );
    -- The worker's scan: due deliveries of every workspace.
    create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
    -- Order per object: an earlier pending delivery of the same object to the same endpoint goes first.
    create index webhook_deliveries_object_idx on webhook_deliveries (org_id, endpoint_id, object_id, event_seq) where status = 'pending';
    create index webhook_deliveries_endpoint_idx on webhook_deliveries (org_id, endpoint_id, created_at desc, id);
    create index webhook_deliveries_event_idx on webhook_deliveries (org_id, event_id);

    create table webhook_delivery_attempts (
      org_id text not null,
      delivery_id text not null,
      attempt integer not null,
      started_at timestamptz(3) not null,
      duration_ms integer not null,
      status_code integer,
      error text,
      response_excerpt text,
      primary key (org_id, delivery_id, attempt),
      foreign key (org_id, delivery_id) references webhook_deliveries (org_id, id) on delete cascade
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table webhook_delivery_attempts; drop table webhook_deliveries; drop table webhook_endpoints; drop table events;');
}
