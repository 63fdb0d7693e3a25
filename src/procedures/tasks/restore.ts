import { restoreProcedure } from '../shared/trash';
import { restoreTask } from '../../db/trash/restore';
import { taskOutput } from './task.schema';

export const tasksRestore = restoreProcedure({
  name: 'tasks.restore',
  scope: 'tasks.delete',
  table: 'tasks',
  prefix: 'task',
  noun: 'task',
  event: 'task.restored',
  output: taskOutput,
  restore: restoreTask,
});
