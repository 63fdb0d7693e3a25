import { defineProcedure } from '../../rpc/define-procedure';
import * as importsQueries from '../../db/imports';
import { idOf, objectOf } from '../shared/fields';
import { importOutput } from './import.schema';
import { noSuchImport } from './get-by-id';

export const importsCancel = defineProcedure({
  name: 'imports.cancel',
  method: 'POST',
  // Whoever may start an import may stop one: no scope of its own to hand out.
  scope: 'imports.create',
  exposed: true,
  description: 'Cancels a queued or running import: the rows it has committed stay (rows.created says how many), the rest are not read. An import that has ended is answered as it is.',
  input: objectOf({ id: idOf('imp') }),
  output: importOutput,
  async handler({ ctx, input }) {
    const row = await importsQueries.cancel(ctx.db, ctx.orgId, input.id);
    if (!row) throw noSuchImport(input.id);
    return importsQueries.toImport(row);
  },
});
