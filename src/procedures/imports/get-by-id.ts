import { defineProcedure } from '../../rpc/define-procedure';
import * as importsQueries from '../../db/imports';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from '../shared/fields';
import { importOutput } from './import.schema';

/** The 404 of an import the workspace does not have (whether or not another one does). */
export function noSuchImport(id: string): AppError {
  return new AppError('NOT_FOUND', `No import ${JSON.stringify(id)} in this workspace`);
}

export const importsGetById = defineProcedure({
  name: 'imports.getById',
  method: 'GET',
  scope: 'imports.read',
  exposed: true,
  description: 'One import job by id: its status and how many of its rows are processed, created, updated and failed.',
  input: objectOf({ id: idOf('imp') }),
  output: importOutput,
  async handler({ ctx, input }) {
    const row = await importsQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!row) throw noSuchImport(input.id);
    return importsQueries.toImport(row);
  },
});
