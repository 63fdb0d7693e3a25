import { restoreProcedure } from '../shared/trash';
import { contactHistory } from '../../events/history';
import { restoreContact } from '../../db/trash/restore';
import { contactOutput } from './contact.schema';

export const contactsRestore = restoreProcedure({
  name: 'contacts.restore',
  scope: 'contacts.delete',
  table: 'contacts',
  prefix: 'con',
  noun: 'contact',
  event: 'contact.restored',
  output: contactOutput,
  history: (record) => contactHistory(null, record),
  restore: restoreContact,
});
