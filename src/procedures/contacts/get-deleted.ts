import { getDeletedProcedure } from '../shared/trash';
import { listDeletedContacts } from '../../db/trash/restore';
import { contactOutput } from './contact.schema';

export const contactsGetDeleted = getDeletedProcedure({
  name: 'contacts.getDeleted',
  scope: 'contacts.read',
  plural: 'contacts',
  output: contactOutput,
  list: listDeletedContacts,
});
