import { defineProcedure } from '../../rpc/define-procedure';
import * as tasksQueries from '../../db/tasks';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { taskOutput, type TaskOutput } from './task.schema';

export const tasksGetById = defineProcedure({
  name: 'tasks.getById',
  method: 'GET',
  scope: 'tasks.read',
  exposed: true,
  description: 'One task by id.',
  input: objectOf({ id: idOf('task') }),
  output: taskOutput,
  async handler({ ctx, input }): Promise<TaskOutput> {
    const task = await tasksQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!task) throw notInWorkspace('tasks', input.id);
    return task;
  },
});
