import { historyProcedure } from '../shared/history-procedure';

export const contactsGetHistory = historyProcedure({
  name: 'contacts.getHistory', resource: 'contact', table: 'contacts', prefix: 'con', scope: 'contacts.read', noun: 'contact',
});
