import { historyProcedure } from '../shared/history-procedure';

export const leadsGetHistory = historyProcedure({
  name: 'leads.getHistory', resource: 'lead', table: 'leads', prefix: 'lead', scope: 'leads.read', noun: 'lead',
});
