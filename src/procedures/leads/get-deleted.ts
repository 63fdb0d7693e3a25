import { getDeletedProcedure } from '../shared/trash';
import { listDeletedLeads } from '../../db/trash/restore';
import { leadOutput } from './lead.schema';

export const leadsGetDeleted = getDeletedProcedure({
  name: 'leads.getDeleted',
  scope: 'leads.read',
  plural: 'leads',
  output: leadOutput,
  list: listDeletedLeads,
});
