import type { Knex } from 'knex';
import { z } from 'zod';
import { defineProcedure, type ProcedureContext, type Scope } from '../../rpc/define-procedure';
import { recordEvents, type HistoryDraft } from '../../events/record-events';
import type { EventType } from '../../domain/event-types';
import type { IdPrefix } from '../../domain/ids';
import type { PageRequest } from '../../db/pagination';
import { toPage } from '../../db/pagination';
import type { Db } from '../../db/knex';
import type { Restored } from '../../db/trash/restore';
import { DEFAULT_TRASH_RETENTION_DAYS } from '../../trash/purge';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from './fields';
import { notInWorkspace } from './references';
import { pageFields } from './pagination.schema';
import { pageOutput, timestampOutput } from './output-fields';

// `<resource>.restore` and `<resource>.getDeleted` are the same procedure for each resource of the
// trash (src/db/trash): built here, each named in its own file beside the resource's others.

/** How long the trash keeps a record: the server's TRASH_RETENTION_DAYS. */
const retentionOf = (ctx: ProcedureContext) => ctx.trashRetentionDays ?? DEFAULT_TRASH_RETENTION_DAYS;

type Table = 'leads' | 'contacts' | 'clients' | 'tasks' | 'invoices';

/** `<router>.restore {id}`: the record back from the trash, its `<noun>.restored` event recorded; 404 when not there, 409 naming the rule it would break. */
export function restoreProcedure<Name extends string, Output extends z.ZodObject, Item extends { id: string }>(spec: {
  name: Name;
  scope: Scope;
  table: Table;
  prefix: IdPrefix;
  noun: string;
  event: EventType;
  output: Output;
  restore(trx: Knex.Transaction, orgId: string, id: string, retentionDays: number): Promise<Restored<Item>>;
  /** The record's change-history entry, for the resources that keep one (leads, contacts, clients). */
  history?: (record: Item) => HistoryDraft[];
}) {
  return defineProcedure({
    name: spec.name,
    method: 'POST',
    scope: spec.scope,
    exposed: true,
    description: `Restores a deleted ${spec.noun} from the trash (within TRASH_RETENTION_DAYS) with the same id, fields and links; 409 when that would break a rule.`,
    input: objectOf({ id: idOf(spec.prefix) }),
    output: spec.output,
    async handler({ ctx, input }): Promise<z.input<Output>> {
      return ctx.db.transaction(async (trx) => {
        const restored = await spec.restore(trx, ctx.orgId, input.id, retentionOf(ctx));
        if (!restored) throw notInWorkspace(spec.table, input.id);
        if ('conflict' in restored) throw new AppError('CONFLICT', restored.conflict);
        const history = spec.history?.(restored.record);
        await recordEvents(trx, ctx, [{ type: spec.event, object: restored.record, history }]);
        return restored.record as z.input<Output>;
      });
    },
  });
}

/** `<router>.getDeleted`: a page of the trash, newest first, each record as its getById answered it, and `deletedAt`. */
export function getDeletedProcedure<Name extends string, Output extends z.ZodObject, Item>(spec: {
  name: Name;
  scope: Scope;
  plural: string;
  output: Output;
  list(db: Db, orgId: string, retentionDays: number, page: PageRequest): Promise<{ items: Item[]; total: number }>;
}) {
  const item = spec.output.extend({ deletedAt: timestampOutput().meta({ description: 'When it was deleted (it is purged TRASH_RETENTION_DAYS later).' }) });
  const output = pageOutput(item);
  return defineProcedure({
    name: spec.name,
    method: 'GET',
    scope: spec.scope,
    exposed: true,
    description: `A page of the trash's ${spec.plural} (deleted, restorable), newest deletion first, each with \`deletedAt\`.`,
    input: objectOf(pageFields).prefault({}),
    output,
    async handler({ ctx, input }): Promise<z.input<typeof output>> {
      const page = { page: input.page, pageSize: input.pageSize };
      const { items, total } = await spec.list(ctx.db, ctx.orgId, retentionOf(ctx), page);
      return toPage(items, total, page) as z.input<typeof output>;
    },
  });
}
