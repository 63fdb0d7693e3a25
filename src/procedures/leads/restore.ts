import { restoreProcedure } from '../shared/trash';
import { leadHistory } from '../../events/history';
import { restoreLead } from '../../db/trash/restore';
import { leadOutput } from './lead.schema';

export const leadsRestore = restoreProcedure({
  name: 'leads.restore',
  scope: 'leads.delete',
  table: 'leads',
  prefix: 'lead',
  noun: 'lead',
  event: 'lead.restored',
  output: leadOutput,
  history: (record) => leadHistory(null, record),
  restore: restoreLead,
});
