import { toSearchTerm } from '../../domain/phone';
import type { ClientListFilters } from '../../db/clients';
import { objectOf, requiredText, text } from '../shared/fields';
import { emailField, phoneField } from '../shared/format-fields';
import { pageFields } from '../shared/pagination.schema';
import { referenceTo } from '../shared/references';

/** The client's fields, as `clients.create` and `clients.update` take them; every one but name may be null. */
export const clientFields = {
  name: requiredText(200),
  /** A contact of the workspace. */
  contactId: referenceTo('contacts').nullable(),
  company: text(200).nullable(),
  email: emailField.nullable(),
  /** Read in the workspace's region, answered in E.164. */
  phone: phoneField.nullable(),
  notes: text(10_000).nullable(),
};

export const clientsGetAllInput = objectOf({ search: text(200).optional(), ...pageFields }).prefault({});

/** A blank search is no filter; a phone-like term also matches the digits of the stored number. */
export function toClientListFilters(input: { search?: string }): ClientListFilters {
  return { search: toSearchTerm(input.search) };
}
