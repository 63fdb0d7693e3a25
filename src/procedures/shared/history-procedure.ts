import { z } from 'zod';
import { defineProcedure, type Scope } from '../../rpc/define-procedure';
import * as history from '../../db/history';
import type { IdPrefix } from '../../domain/ids';
import { invalidInput } from '../../errors/app-error';
import { idOf, objectOf } from './fields';
import { idOutput, timestampOutput } from './output-fields';
import { pageSizeNumber, DEFAULT_PAGE_SIZE } from './pagination.schema';
import { actorOutput } from '../events/event.schema';
import { notInWorkspace, type NamedTable } from './references';

// leads.getHistory, contacts.getHistory and clients.getHistory (issue 50): one record's change
// history, newest first, walked by cursor (src/db/history). Each is its resource's own procedure
// file, made by `historyProcedure` so the three answer alike.

/** A field's value as an entry holds it: text (times as ISO 8601), a list of text (phones, emails), or null. */
const fieldValueOutput = z.union([z.string(), z.array(z.string()), z.null()]);

const changeOutput = z
  .strictObject({
    from: fieldValueOutput.meta({ description: 'The value before (null on a creation).', examples: ['NOT_CONTACTED'] }),
    to: fieldValueOutput.meta({ description: 'The value after (null on a delete).', examples: ['CONTACTED'] }),
  })
  .meta({ description: "A field's value before and after, as the API answers it (times as ISO 8601 text)." });

export const historyEntryOutput = z
  .strictObject({
    id: idOutput('hist'),
    changedAt: timestampOutput(),
    action: z.enum(['created', 'updated', 'deleted', 'restored']).meta({ examples: ['updated'] }),
    actor: actorOutput.meta({ description: 'Who made the change, as events name it: the API key, or the playground token a member called with.' }),
    procedure: z.string().nullable().meta({ description: "The procedure the change came through (`import` for an import's rows); null when not through one.", examples: ['leads.update'] }),
    requestId: z.string().nullable().meta({ description: "The request's X-Request-Id (an import's rows: the import's id); null when unknown.", examples: ['7f0c2c8e-4f7e-4d4a-9b7e-2b1f9a3e6d10'] }),
    changes: z.record(z.string(), changeOutput).meta({ description: 'The fields the change set, named as the API names them: every field set on a creation or a delete.' }),
  })
  .meta({ description: 'One change to a record: what it changed, when, by whom, through which procedure and request.' });

export const historyPageOutput = z.strictObject({
  data: z.array(historyEntryOutput),
  pagination: z.strictObject({
    pageSize: z.number().int().min(1).meta({ examples: [50] }),
    hasNextPage: z.boolean().meta({ description: 'Whether older entries follow.', examples: [false] }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next (older) page; null on the last page.', examples: ['hist_3kTMd9VbX2qLr7NwY5pHcZ'] }),
  }),
});

/** One record's history procedure: `<resource>s.getHistory`, read with `<resource>s.read`. */
export function historyProcedure<const Name extends string>(options: {
  name: Name; resource: history.HistoryResource; table: NamedTable; prefix: IdPrefix; scope: Scope; noun: string;
}) {
  const { resource, table } = options;
  return defineProcedure({
    name: options.name,
    method: 'GET',
    scope: options.scope,
    exposed: true,
    description: `A ${options.noun}'s change history, newest first: each change's fields (from, to), time, actor, procedure and request id.`,
    input: objectOf({
      id: idOf(options.prefix),
      /** `pagination.nextCursor` of the previous page. */
      cursor: idOf('hist').optional(),
      pageSize: pageSizeNumber.default(DEFAULT_PAGE_SIZE),
    }),
    output: historyPageOutput,
    async handler({ ctx, input }): Promise<z.input<typeof historyPageOutput>> {
      if (!(await history.recordExists(ctx.db, ctx.orgId, resource, input.id))) throw notInWorkspace(table, input.id);
      if (input.cursor !== undefined && !(await history.hasEntry(ctx.db, ctx.orgId, resource, input.id, input.cursor))) {
        throw invalidInput([{ path: ['cursor'], message: `is no entry of this ${options.noun}'s history: use pagination.nextCursor as it was answered` }]);
      }
      const { entries, more } = await history.listPage(ctx.db, ctx.orgId, resource, input.id, input.cursor, input.pageSize);
      return { data: entries, pagination: { pageSize: input.pageSize, hasNextPage: more, nextCursor: more ? entries.at(-1)!.id : null } };
    },
  });
}
