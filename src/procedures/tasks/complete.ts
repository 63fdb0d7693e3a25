import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as tasksQueries from '../../db/tasks';
import { completeTask } from '../../domain/task-status';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { taskOutput, type TaskOutput } from './task.schema';

export const tasksComplete = defineProcedure({
  name: 'tasks.complete',
  method: 'POST',
  scope: 'tasks.update',
  exposed: true,
  description: 'Marks an OPEN task DONE, completed now; a task already DONE is a 409.',
  input: objectOf({ id: idOf('task') }),
  output: taskOutput,
  async handler({ ctx, input }): Promise<TaskOutput> {
    return ctx.db.transaction(async (trx) => {
      // Locked so that two concurrent completions cannot both succeed.
      const current = await tasksQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw notInWorkspace('tasks', input.id);
      const state = completeTask(current, new Date());
      const task = (await tasksQueries.update(trx, ctx.orgId, input.id, state))!;
      await recordEvents(trx, ctx, [{ type: 'task.updated', object: task }, { type: 'task.completed', object: task }]);
      return task;
    });
  },
});
