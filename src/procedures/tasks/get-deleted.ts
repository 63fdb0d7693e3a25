import { getDeletedProcedure } from '../shared/trash';
import { listDeletedTasks } from '../../db/trash/restore';
import { taskOutput } from './task.schema';

export const tasksGetDeleted = getDeletedProcedure({
  name: 'tasks.getDeleted',
  scope: 'tasks.read',
  plural: 'tasks',
  output: taskOutput,
  list: listDeletedTasks,
});
