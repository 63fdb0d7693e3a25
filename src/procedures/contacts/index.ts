import { contactsGetAll } from './get-all';
import { contactsGetById } from './get-by-id';
import { contactsCreate } from './create';
import { contactsUpdate } from './update';
import { contactsDelete } from './delete';
import { contactsGetHistory } from './get-history';

export const contactsProcedures = [contactsGetAll, contactsGetById, contactsCreate, contactsUpdate, contactsDelete, contactsGetHistory] as const;
