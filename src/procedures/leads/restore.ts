import { restoreProcedure } from '../shared/trash';
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
  restore: restoreLead,
});
