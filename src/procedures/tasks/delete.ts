import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as tasksQueries from '../../db/queries/tasks.queries';
import { idField } from '../shared/fields';
import { notInWorkspace } from '../shared/references';

export const tasksDelete = defineProcedure({
  name: 'tasks.delete',
  method: 'POST',
  scope: 'tasks.delete',
  exposed: true,
  description: 'Deletes a task.',
  input: z.strictObject({ id: idField }),
  async handler({ ctx, input }) {
    if (!(await tasksQueries.remove(ctx.db, ctx.orgId, input.id))) throw notInWorkspace('tasks', input.id);
    return { id: input.id, deleted: true as const };
  },
});
