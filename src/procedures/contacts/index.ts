import { contactsGetAll } from './get-all';
import { contactsGetById } from './get-by-id';
import { contactsCreate } from './create';
import { contactsUpdate } from './update';
import { contactsDelete } from './delete';

export const contactsProcedures = [contactsGetAll, contactsGetById, contactsCreate, contactsUpdate, contactsDelete] as const;
