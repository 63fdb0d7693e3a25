import { contactsGetAll } from './get-all';
import { contactsGetById } from './get-by-id';
import { contactsCreate } from './create';
import { contactsUpdate } from './update';
import { contactsDelete } from './delete';
import { contactsErase } from './erase';
import { contactsExportPersonalData } from './export-personal-data';

export const contactsProcedures = [contactsGetAll, contactsGetById, contactsCreate, contactsUpdate, contactsDelete, contactsErase, contactsExportPersonalData] as const;
