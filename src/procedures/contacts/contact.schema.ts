import { toSearchTerm } from '../../domain/phone';
import type { ContactListFilters } from '../../db/contacts';
import { listOf, objectOf, requiredText, text } from '../shared/fields';
import { emailField, phoneField } from '../shared/format-fields';
import { pageFields } from '../shared/pagination.schema';

/** The contact's own fields, as `contacts.create` and `contacts.update` take them (the same bounds as a lead's). */
export const contactFields = {
  name: requiredText(200),
  /** Read in the workspace's region, answered in E.164. */
  phones: listOf(phoneField, { of: 'phone numbers', max: 20 }),
  emails: listOf(emailField, { of: 'email addresses', max: 20 }),
  company: text(200).nullable(),
};

export const contactsGetAllInput = objectOf({ search: text(200).optional(), ...pageFields }).prefault({});

/** A blank search is no filter; a phone-like term also matches the digits of stored numbers. */
export function toContactListFilters(input: { search?: string }): ContactListFilters {
  return { search: toSearchTerm(input.search) };
}
