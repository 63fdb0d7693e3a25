import { clientsGetAll } from './get-all';
import { clientsGetById } from './get-by-id';
import { clientsCreate } from './create';
import { clientsUpdate } from './update';
import { clientsDelete } from './delete';
import { clientsGetHistory } from './get-history';
import { clientsRestore } from './restore';
import { clientsGetDeleted } from './get-deleted';

export const clientsProcedures = [clientsGetAll, clientsGetById, clientsCreate, clientsUpdate, clientsDelete, clientsRestore, clientsGetDeleted, clientsGetHistory] as const;
