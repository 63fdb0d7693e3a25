import { getDeletedProcedure } from '../shared/trash';
import { listDeletedClients } from '../../db/trash/restore';
import { clientOutput } from './client.schema';

export const clientsGetDeleted = getDeletedProcedure({
  name: 'clients.getDeleted',
  scope: 'clients.read',
  plural: 'clients',
  output: clientOutput,
  list: listDeletedClients,
});
