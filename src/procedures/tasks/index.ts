import { tasksGetAll } from './get-all';
import { tasksGetById } from './get-by-id';
import { tasksCreate } from './create';
import { tasksUpdate } from './update';
import { tasksComplete } from './complete';
import { tasksDelete } from './delete';

export const tasksProcedures = [tasksGetAll, tasksGetById, tasksCreate, tasksUpdate, tasksComplete, tasksDelete] as const;
