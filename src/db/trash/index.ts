import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';
import { offsetOf, type PageRequest } from '../pagination';

// The trash (migration 20261214120000): a delete moves the record's row, and its dependent rows,
// out of the live tables into one `trash` row, in the delete's own statement; live reads never
// look here. A restore takes the trash row back out (`takeFromTrash`), checks what the record
// refers to (`referencesOf`), and re-inserts the rows exactly as they were stored
// (`insertRows`: jsonb_populate_recordset over the table's row type). Each resource's module says
// which rows it moves and what it rebuilds (lead counters, stored JSON, cleared links).

export type TrashResource = 'lead' | 'contact' | 'client' | 'task' | 'invoice';

/** Who deleted: the key or member, as events name them. */
export interface DeletedBy {
  kind: string;
  id: string;
}

/** The rows a record's dependents keep, read in the delete's statement before it cascades them. */
export interface Dependent {
  /** Its name in `rows`. */
  key: string;
  table: string;
  /** The column naming the record. */
  column: string;
}

/**
 * Deletes the record of `table` and writes its trash row, in one statement; answers the deleted
 * row (with `answer`'s columns, `t` the record), or undefined when there was none.
 * `unlinked` lists the links the delete cleared before (the other records' ids), kept for a
 * restore to re-make; `dependents` the rows the delete cascades, kept as stored.
 * The trash row is written by a CTE that reads the record's table itself, and the statement's
 * own delete removes it (both see the rows as they were before it): on Citus, so, the insert is
 * pushed down to the workspace's shard and the delete follows it there on the same connection
 * (an insert selecting from the delete's CTE was pulled to the coordinator, written over a
 * second connection, and committed in two phases).
 */
export async function moveToTrash<Row>(
  trx: Knex.Transaction,
  orgId: string,
  move: {
    resource: TrashResource;
    table: string;
    id: string;
    deletedBy: DeletedBy;
    /** The person the record belongs to, as SQL over `t` (null where none). */
    contactOf: string;
    dependents?: readonly Dependent[];
    unlinked?: Record<string, readonly string[]>;
    /** A table joined to the record for `answer` and `extra` (named bindings: `:org` is the workspace). */
    join?: { from: string; on: string };
    /** More of the trash row's `rows`, as `'key', expression` pairs over `t` and `join`. */
    extra?: string;
    answer: string;
  },
): Promise<Row | undefined> {
  const kept = [
    `'row', to_jsonb(t)`,
    `'unlinked', :unlinked::jsonb`,
    ...(move.dependents ?? []).map((d) => `'${d.key}', (
      select coalesce(jsonb_agg(to_jsonb(x) order by x.id), '[]'::jsonb) from ${d.table} x where x.org_id = :org and x.${d.column} = :id
    )`),
    ...(move.extra ? [move.extra] : []),
  ];
  const { join } = move;
  const { rows: [row] } = await trx.raw<{ rows: Row[] }>(
    `with moved as (
      insert into ${TABLES.trash} (org_id, resource, id, deleted_at, deleted_by_kind, deleted_by_id, contact_id, rows)
      select t.org_id, :resource, t.id, statement_timestamp(), :actorKind, :actorId, ${move.contactOf}, jsonb_build_object(${kept.join(', ')})
      from ${move.table} t ${join ? `join ${join.from} on ${join.on}` : ''}
      where t.org_id = :org and t.id = :id
    )
    delete from ${move.table} t ${join ? `using ${join.from}` : ''}
    where t.org_id = :org and t.id = :id ${join ? `and ${join.on}` : ''}
    returning ${move.answer}`,
    {
      org: orgId, id: move.id, resource: move.resource, actorKind: move.deletedBy.kind, actorId: move.deletedBy.id,
      unlinked: JSON.stringify(move.unlinked ?? {}),
    },
  );
  return row;
}

/** A trash row as a restore takes it. */
export interface Trashed {
  deletedAt: Date;
  /** `row`: the record's row as stored; `unlinked`: the links its delete cleared; and the dependents' rows. */
  rows: { row: Record<string, unknown>; unlinked: Record<string, string[]> } & Record<string, unknown>;
}

/** The newest `deleted_at` a record may have and still be in the trash: older ones are past the retention. */
const IN_RETENTION = `deleted_at > statement_timestamp() - make_interval(days => :retentionDays)`;

/**
 * Takes the record out of the trash (the caller's transaction puts it back if the restore fails);
 * undefined when it is not there, or is past the retention (as good as purged).
 */
export async function takeFromTrash(
  trx: Knex.Transaction,
  orgId: string,
  resource: TrashResource,
  id: string,
  retentionDays: number,
): Promise<Trashed | undefined> {
  const { rows: [row] } = await trx.raw<{ rows: { deleted_at: Date; rows: Trashed['rows'] }[] }>(
    `delete from ${TABLES.trash} where org_id = :org and resource = :resource and id = :id and ${IN_RETENTION}
     returning deleted_at, rows`,
    { org: orgId, resource, id, retentionDays },
  );
  return row && { deletedAt: row.deleted_at, rows: row.rows };
}

/** A record a restored one refers to: in the live table, or in the trash (`resource`). */
export interface Reference {
  table: string;
  id: string;
  /** Its trash resource, to tell "in the trash" from "gone". */
  resource?: TrashResource;
}

/** Where each reference is: live, in the trash, or gone; and whether `externalId` is held by a live record of `table`. */
export async function referencesOf(
  trx: Knex.Transaction,
  orgId: string,
  references: readonly Reference[],
  externalId?: { table: string; value: string },
): Promise<{ places: ('live' | 'trash' | 'gone')[]; externalIdTaken: boolean }> {
  const columns: string[] = [];
  const bindings: Knex.Value[] = [];
  references.forEach((ref, i) => {
    // Locked (KEY SHARE) until the restore commits: a delete of that record, which locks it FOR
    // UPDATE before it checks what uses it, waits and then sees the restored record.
    columns.push(`exists (select 1 from ${ref.table} where org_id = ? and id = ? for key share) as live${i}`);
    bindings.push(orgId, ref.id);
    columns.push(ref.resource
      ? `exists (select 1 from ${TABLES.trash} where org_id = ? and resource = ? and id = ?) as trash${i}`
      : `false as trash${i}`);
    if (ref.resource) bindings.push(orgId, ref.resource, ref.id);
  });
  columns.push(externalId ? `exists (select 1 from ${externalId.table} where org_id = ? and external_id = ?) as taken` : 'false as taken');
  if (externalId) bindings.push(orgId, externalId.value);
  const { rows: [row] } = await trx.raw<{ rows: Record<string, boolean>[] }>(`select ${columns.join(', ')}`, bindings);
  return {
    places: references.map((_, i) => (row![`live${i}`] ? 'live' : row![`trash${i}`] ? 'trash' : 'gone')),
    externalIdTaken: row!.taken === true,
  };
}

/**
 * Inserts rows exactly as a trash row keeps them (every stored column, by the table's row type),
 * but the table's generated columns, which PostgreSQL computes again.
 */
export async function insertRows(
  trx: Knex.Transaction,
  table: string,
  rows: readonly Record<string, unknown>[],
  generated: readonly string[] = [],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).filter((column) => !generated.includes(column)).map((column) => `"${column.replace(/"/g, '""')}"`);
  await trx.raw(
    `insert into ${table} (${columns.join(', ')}) select ${columns.join(', ')} from jsonb_populate_recordset(null::${table}, ?::jsonb)`,
    [JSON.stringify(rows)],
  );
}

/** Re-makes links a delete cleared, where the other record still has none: answers the ids linked again. */
export async function relink(
  trx: Knex.Transaction,
  orgId: string,
  link: { table: string; column: string; to: string; ids: readonly string[] | undefined },
): Promise<string[]> {
  if (!link.ids || link.ids.length === 0) return [];
  const rows: { id: string }[] = await trx(link.table)
    .where('org_id', orgId).whereIn('id', [...link.ids]).whereNull(link.column)
    .update({ [link.column]: link.to })
    .returning(['id']);
  return rows.map((r) => r.id).sort();
}

/**
 * One page of a resource's trash, newest first, each row populated as the table's row type
 * (`r`, with `deleted_at_in_trash` and the trash row's `rows`), and the exact total.
 */
export async function listTrash<Row>(
  db: Db,
  orgId: string,
  list: { resource: TrashResource; table: string; retentionDays: number; page: PageRequest },
): Promise<{ rows: (Row & { trash_deleted_at: Date; trash_rows: Trashed['rows'] })[]; total: number }> {
  const where = `t.org_id = :org and t.resource = :resource and t.${IN_RETENTION}`;
  const bindings = { org: orgId, resource: list.resource, retentionDays: list.retentionDays };
  const [{ rows }, { rows: [counted] }] = await Promise.all([
    db.raw<{ rows: (Row & { trash_deleted_at: Date; trash_rows: Trashed['rows'] })[] }>(
      `select r.*, t.deleted_at as trash_deleted_at, t.rows as trash_rows
       from ${TABLES.trash} t cross join lateral jsonb_populate_record(null::${list.table}, t.rows->'row') r
       where ${where}
       order by t.deleted_at desc, t.id desc limit :limit offset :offset`,
      { ...bindings, limit: list.page.pageSize, offset: offsetOf(list.page) },
    ),
    db.raw<{ rows: { n: number }[] }>(`select count(*)::int as n from ${TABLES.trash} t where ${where}`, bindings),
  ]);
  return { rows, total: counted?.n ?? 0 };
}

/** The ids of a contact's leads in the trash (by trash_org_contact_idx), in order: a person's records include them. */
export function trashedLeadIdsOf(db: Db, orgId: string, contactId: string): Promise<string[]> {
  return db(TABLES.trash).where({ org_id: orgId, contact_id: contactId, resource: 'lead' }).orderBy('id').pluck('id');
}

/**
 * Cross-workspace: removes up to `batchSize` trash rows deleted before `cutoff`, for good, in one
 * short statement (through the deleted_at index); answers how many went.
 */
export async function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  return acrossWorkspaces(db, async (trx) => {
    const { rows } = await trx.raw<{ rows: { org_id: string; resource: TrashResource; id: string }[] }>(
      `delete from ${TABLES.trash} where (org_id, resource, id) in (
         select org_id, resource, id from ${TABLES.trash} where deleted_at < ? order by deleted_at limit ?
       )
       returning org_id, resource, id`,
      [cutoff, batchSize],
    );
    // A record gone for good takes its change history with it (it was kept for a restore).
    const withHistory = rows.filter((r) => HISTORY_RESOURCES.has(r.resource));
    if (withHistory.length > 0) {
      // A plain list of keys (not a join with unnest), so Citus prunes to the shards that hold them.
      await trx.raw(
        `delete from ${TABLES.recordHistory} where (org_id, resource, record_id) in (${withHistory.map(() => '(?, ?, ?)').join(', ')})`,
        withHistory.flatMap((r) => [r.org_id, r.resource, r.id]),
      );
    }
    return rows.length;
  });
}

/** The resources whose change history record_history keeps (its `resource` names them as the trash does). */
const HISTORY_RESOURCES: ReadonlySet<TrashResource> = new Set(['lead', 'contact', 'client']);
