import { contactsGetAll } from './get-all';
import { contactsGetById } from './get-by-id';
import { contactsCreate } from './create';
import { contactsUpdate } from './update';
import { contactsDelete } from './delete';
import { contactsGetHistory } from './get-history';
import { contactsRestore } from './restore';
import { contactsGetDeleted } from './get-deleted';
import { contactsErase } from './erase';
import { contactsExportPersonalData } from './export-personal-data';

export const contactsProcedures = [
  contactsGetAll, contactsGetById, contactsCreate, contactsUpdate, contactsDelete, contactsRestore, contactsGetDeleted, contactsGetHistory,
  contactsErase, contactsExportPersonalData,
] as const;
