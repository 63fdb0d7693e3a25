import { z } from 'zod';
import { toSearchTerm } from '../../domain/phone';
import type { ContactListFilters } from '../../db/contacts';
import { externalIdField, listOf, objectOf, requiredText, text } from '../shared/fields';
import { emailField, phoneField } from '../shared/format-fields';
import { deletedOutput, emailOutput, externalIdOutput, idOutput, phoneOutput, textOutput, timestampOutput } from '../shared/output-fields';
import { pageFields } from '../shared/pagination.schema';

/** The contact's own fields, as `contacts.create` and `contacts.update` take them (the same bounds as a lead's). */
export const contactFields = {
  name: requiredText(200, { example: 'Ana Souza' }),
  /** Read in the workspace's region, answered in E.164. */
  phones: listOf(phoneField, { of: 'phone numbers', max: 20 }),
  emails: listOf(emailField, { of: 'email addresses', max: 20 }),
  company: text(200, { example: 'Acme Ltd' }).nullable(),
  /** Your own id for the contact; one another contact of the workspace holds is a 409. */
  externalId: externalIdField.nullable(),
};

export const contactsGetAllInput = objectOf({
  search: text(200, { example: 'Ana' }).optional(),
  /** Only the contact with this external id. */
  externalId: externalIdField.optional(),
  ...pageFields,
}).prefault({});

/** A blank search is no filter; a phone-like term also matches the digits of stored numbers. */
export function toContactListFilters(input: { search?: string; externalId?: string }): ContactListFilters {
  return { search: toSearchTerm(input.search), externalId: input.externalId };
}

/** A contact as every contacts procedure answers it (src/db/contacts `toContact`); the examples describe one person, Ana Souza of Acme Ltd. */
export const contactOutput = z
  .strictObject({
    id: idOutput('con'),
    name: textOutput('Ana Souza'),
    phones: z.array(phoneOutput).meta({ description: 'E.164, the primary first.', examples: [['+447400123456']] }),
    emails: z.array(emailOutput).meta({ description: 'Lowercased, the primary first.', examples: [['ana@example.com']] }),
    primaryPhone: phoneOutput.nullable().meta({ description: 'The first of `phones`, or null.' }),
    primaryEmail: emailOutput.nullable().meta({ description: 'The first of `emails`, or null.' }),
    company: textOutput('Acme Ltd').nullable(),
    createdAt: timestampOutput('2026-11-20T14:05:00.000Z'),
    updatedAt: timestampOutput('2026-11-26T09:30:00.000Z'),
    externalId: externalIdOutput,
  })
  .meta({ description: 'A contact: the person behind leads and clients.' });

export type ContactOutput = z.input<typeof contactOutput>;

/** What `contacts.delete` answers. */
export const contactDeletedOutput = deletedOutput('con', 'contact');
