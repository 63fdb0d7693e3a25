import { historyProcedure } from '../shared/history.schema';

export const leadsGetHistory = historyProcedure({
  name: 'leads.getHistory', resource: 'lead', table: 'leads', prefix: 'lead', scope: 'leads.read', noun: 'lead',
});
