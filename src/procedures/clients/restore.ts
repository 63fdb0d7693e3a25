import { restoreProcedure } from '../shared/trash';
import { clientHistory } from '../../events/history';
import { restoreClient } from '../../db/trash/restore';
import { clientOutput } from './client.schema';

export const clientsRestore = restoreProcedure({
  name: 'clients.restore',
  scope: 'clients.delete',
  table: 'clients',
  prefix: 'cli',
  noun: 'client',
  event: 'client.restored',
  output: clientOutput,
  history: (record) => clientHistory(null, record),
  restore: restoreClient,
});
