import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as tasksQueries from '../../db/tasks';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { taskDeletedOutput } from './task.schema';

export const tasksDelete = defineProcedure({
  name: 'tasks.delete',
  method: 'POST',
  scope: 'tasks.delete',
  exposed: true,
  description: 'Deletes a task.',
  input: objectOf({ id: idOf('task') }),
  output: taskDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof taskDeletedOutput>> {
    return ctx.db.transaction(async (trx) => {
      // The task as it was, locked, so the event carries what was deleted.
      if (!(await tasksQueries.lockForUpdate(trx, ctx.orgId, input.id))) throw notInWorkspace('tasks', input.id);
      const task = (await tasksQueries.getById(trx, ctx.orgId, input.id))!;
      await tasksQueries.remove(trx, ctx.orgId, input.id, ctx.actor);
      await recordEvents(trx, ctx, [{ type: 'task.deleted', object: task }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
