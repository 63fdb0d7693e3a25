import { z } from 'zod';
import { toSearchTerm } from '../../domain/phone';
import type { ClientListFilters } from '../../db/queries/clients.queries';
import { normalisePhones } from '../shared/phones';
import { emailField, idField, phoneField, requiredText, text } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';

/** The client's fields, as `clients.create` and `clients.update` take them; every one but name may be null. */
export const clientFields = {
  name: requiredText(200),
  contactId: idField.nullable(),
  company: text(200).nullable(),
  email: emailField.nullable(),
  phone: phoneField.nullable(),
  notes: text(10_000).nullable(),
};

export const clientsGetAllInput = z.strictObject({ search: text(200).optional(), ...pageFields }).prefault({});

/** A blank search is no filter; a phone-like term also matches the digits of the stored number. */
export function toClientListFilters(input: { search?: string }): ClientListFilters {
  return { search: toSearchTerm(input.search) };
}

/** The phone in E.164 read in the workspace's region (400 naming `phone` if unreadable); null and undefined pass through. */
export function normaliseClientPhone<T extends string | null | undefined>(phone: T, region: string): T | string {
  if (phone === null || phone === undefined) return phone;
  return normalisePhones([{ value: phone, path: ['phone'] }], region)[0]!;
}
