import type { Knex } from 'knex';

// leads.upsert's create is one statement (src/db/leads/create.ts, `createLeadUnlessHeld`): the
// lead's insert first (`on conflict ... do nothing`), then its contact and the other rows only
// when the lead went in. PostgreSQL checks the lead's reference to its contact at the end of
// the statement, when the contact is there; Citus runs such a statement's CTEs one after another
// (each a task in the workspace's shard group), so the lead's insert was checked before its
// contact's and refused. Checked at commit instead (initially deferred), the reference holds in
// both, and every other write is unchanged (each inserts a lead's contact in the same statement or
// transaction, or before it). PostgreSQL changes the constraint in place; Citus cannot
// (`alter constraint` is refused on a distributed table), so there it is dropped and added again,
// which checks the existing rows once.
const CONSTRAINT = 'leads_org_id_contact_id_fkey';

async function isCitus(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  return rows[0].citus;
}

async function setTiming(knex: Knex, timing: 'deferrable initially deferred' | 'not deferrable'): Promise<void> {
  if (!(await isCitus(knex))) {
    await knex.raw(`alter table leads alter constraint ${CONSTRAINT} ${timing}`);
    return;
  }
  // One statement a call: Citus refuses ADD CONSTRAINT beside another subcommand.
  await knex.raw(`alter table leads drop constraint ${CONSTRAINT}`);
  await knex.raw(`alter table leads add constraint ${CONSTRAINT} foreign key (org_id, contact_id) references contacts (org_id, id) ${timing}`);
}

export async function up(knex: Knex): Promise<void> {
  await setTiming(knex, 'deferrable initially deferred');
}

export async function down(knex: Knex): Promise<void> {
  await setTiming(knex, 'not deferrable');
}
