import { defineProcedure } from '../../rpc/define-procedure';
import * as importsQueries from '../../db/imports';
import { toPage } from '../../db/pagination';
import { objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import { importOutput } from './import.schema';

export const importsGetAll = defineProcedure({
  name: 'imports.getAll',
  method: 'GET',
  scope: 'imports.read',
  exposed: true,
  description: "A page of the workspace's import jobs, newest first.",
  input: objectOf({ ...pageFields }).prefault({}),
  output: pageOutput(importOutput).meta({ description: "A page of the workspace's import jobs, newest first." }),
  async handler({ ctx, input }) {
    const { imports, total } = await importsQueries.list(ctx.db, ctx.orgId, input);
    return toPage(imports, total, input);
  },
});
