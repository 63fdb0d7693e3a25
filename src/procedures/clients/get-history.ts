import { historyProcedure } from '../shared/history.schema';

export const clientsGetHistory = historyProcedure({
  name: 'clients.getHistory', resource: 'client', table: 'clients', prefix: 'cli', scope: 'clients.read', noun: 'client',
});
