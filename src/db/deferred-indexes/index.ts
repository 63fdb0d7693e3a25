import type { Db } from '../knex';
import { TABLES } from '../tables';

/** A secondary index dropped for a bulk load, as `deferred_indexes` keeps it until it is built again. */
export interface DeferredIndex {
  name: string;
  tableName: string;
  definition: string;
}

/**
 * Drops the secondary indexes of `tables`, writing each one's definition to `deferred_indexes` in
 * the same transaction. Indexes that back a constraint (primary keys, unique keys) stay: they keep
 * the rows correct while the others are away. Answers what was dropped.
 * With `onlyIfAloneIn`, drops nothing (and answers []) when any other workspace has rows in
 * `tables`: checked under a lock that keeps writers out until the indexes are gone, so no other
 * workspace's rows arrive between the check and the drop.
 */
export async function deferSecondaryIndexes(db: Db, tables: readonly string[], options: { onlyIfAloneIn?: string } = {}): Promise<DeferredIndex[]> {
  return db.transaction(async (trx) => {
    if (options.onlyIfAloneIn !== undefined && (await otherWorkspacesHaveRows(trx, tables, options.onlyIfAloneIn))) return [];
    const rows = await secondaryIndexesOf(trx, tables);
    if (rows.length === 0) return [];
    await trx(TABLES.deferredIndexes).insert(rows.map((r) => ({ name: r.name, table_name: r.tableName, definition: r.definition })));
    for (const index of rows) await trx.raw('drop index ??', [index.name]);
    return rows;
  });
}

/** The secondary indexes of `tables`: those that back no constraint, which a bulk load may drop. */
export async function secondaryIndexesOf(db: Db, tables: readonly string[]): Promise<DeferredIndex[]> {
  const { rows } = await db.raw<{ rows: DeferredIndex[] }>(`
    select i.indexrelid::regclass::text as name, t.relname as "tableName", pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class t on t.oid = i.indrelid
    where i.indrelid = any(?::regclass[]) and not i.indisprimary and not i.indisunique
      and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    order by 1`, [[...tables]]);
  return rows;
}

/** Whether any workspace but `orgId` has a row in `tables`, read under a lock that blocks their writers. */
async function otherWorkspacesHaveRows(trx: Db, tables: readonly string[], orgId: string): Promise<boolean> {
  await trx.raw(`lock table ${tables.map(() => '??').join(', ')} in share row exclusive mode`, [...tables]);
  for (const table of tables) {
    // Two range scans of the org_id-led primary key, not a scan of this workspace's own rows.
    const other = await trx(table).where('org_id', '<', orgId).orWhere('org_id', '>', orgId).first(trx.raw('1 as found'));
    if (other) return true;
  }
  return false;
}

/**
 * Builds every index in `deferred_indexes` again, `concurrency` at a time (each builder is one
 * backend, so one core), deleting its row in the transaction that builds it, so an index whose
 * build fails stays listed. Trigram indexes go first, as they take longest. A builder that fails
 * stops and the others finish theirs before the first failure is thrown. Answers the names built.
 * `onBuilding` hears of each build as it starts: its position among those pending, and their number.
 */
export async function rebuildDeferredIndexes(
  db: Db, concurrency = 2, onBuilding?: (index: { name: string; position: number; of: number }) => void,
): Promise<string[]> {
  const pending: { name: string; definition: string }[] = await db(TABLES.deferredIndexes)
    .select('name', 'definition')
    .orderByRaw("definition like '% USING gin %' desc, name");
  const of = pending.length;
  let started = 0;
  const built: string[] = [];
  const failures: unknown[] = [];
  const builder = async () => {
    for (let next = pending.shift(); next && failures.length === 0; next = pending.shift()) {
      const { name, definition } = next;
      try {
        await db.transaction(async (trx) => {
          // Memory did not change a trigram index's build time (25-28 s from 256 MB to 4 GB), so
          // a modest size, times the builders, is enough.
          await trx.raw("set local maintenance_work_mem = '256MB'");
          // Zero when another process rebuilt it meanwhile (its delete held the row until then).
          if ((await trx(TABLES.deferredIndexes).where({ name }).delete()) === 0) return;
          onBuilding?.({ name, position: ++started, of });
          await trx.raw(definition);
          built.push(name);
        });
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, builder));
  if (failures.length > 0) throw failures[0];
  return built;
}
