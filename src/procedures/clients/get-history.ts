import { historyProcedure } from '../shared/history-procedure';

export const clientsGetHistory = historyProcedure({
  name: 'clients.getHistory', resource: 'client', table: 'clients', prefix: 'cli', scope: 'clients.read', noun: 'client',
});
