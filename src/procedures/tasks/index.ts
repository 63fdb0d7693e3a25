import { tasksGetAll } from './get-all';
import { tasksGetById } from './get-by-id';
import { tasksCreate } from './create';
import { tasksUpdate } from './update';
import { tasksComplete } from './complete';
import { tasksDelete } from './delete';
import { tasksRestore } from './restore';
import { tasksGetDeleted } from './get-deleted';

export const tasksProcedures = [tasksGetAll, tasksGetById, tasksCreate, tasksUpdate, tasksComplete, tasksDelete, tasksRestore, tasksGetDeleted] as const;
