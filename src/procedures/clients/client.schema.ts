import { z } from 'zod';
import { toSearchTerm } from '../../domain/phone';
import type { ClientListFilters } from '../../db/clients';
import { externalIdField, objectOf, requiredText, text } from '../shared/fields';
import { emailField, phoneField } from '../shared/format-fields';
import { deletedOutput, emailOutput, externalIdOutput, idOutput, phoneOutput, textOutput, timestampOutput } from '../shared/output-fields';
import { pageFields } from '../shared/pagination.schema';
import { referenceTo } from '../shared/references';

/** The client's fields, as `clients.create` and `clients.update` take them; every one but name may be null. */
export const clientFields = {
  name: requiredText(200, { example: 'Ana Souza' }),
  /** A contact of the workspace. */
  contactId: referenceTo('contacts').nullable(),
  company: text(200, { example: 'Acme Ltd' }).nullable(),
  email: emailField.nullable(),
  /** Read in the workspace's region, answered in E.164. */
  phone: phoneField.nullable(),
  notes: text(10_000, { example: 'Invoices to accounts@acme.example, net 30' }).nullable(),
  /** Your own id for the client; one another client of the workspace holds is a 409. */
  externalId: externalIdField.nullable(),
};

export const clientsGetAllInput = objectOf({
  search: text(200, { example: 'Acme' }).optional(),
  /** Only the client with this external id. */
  externalId: externalIdField.optional(),
  ...pageFields,
}).prefault({});

/** A blank search is no filter; a phone-like term also matches the digits of the stored number. */
export function toClientListFilters(input: { search?: string; externalId?: string }): ClientListFilters {
  return { search: toSearchTerm(input.search), externalId: input.externalId };
}

/** A client as every clients procedure answers it (src/db/clients `toClient`); the examples describe one client, Ana Souza of Acme Ltd. */
export const clientOutput = z
  .strictObject({
    id: idOutput('cli'),
    name: textOutput('Ana Souza'),
    contactId: idOutput('con').nullable().meta({ description: 'The contact the client is linked to, or null.' }),
    company: textOutput('Acme Ltd').nullable(),
    email: emailOutput.nullable().meta({ description: 'Lowercased.' }),
    phone: phoneOutput.nullable(),
    notes: textOutput('Invoices to accounts@acme.example, net 30').nullable(),
    createdAt: timestampOutput('2026-11-26T09:30:00.000Z'),
    updatedAt: timestampOutput('2026-11-27T11:15:00.000Z'),
    externalId: externalIdOutput,
  })
  .meta({ description: 'A client: a customer the workspace bills.' });

export type ClientOutput = z.input<typeof clientOutput>;

/** A client named by id only: what another resource's answer embeds for a caller without `clients.read`. */
export const clientReferenceOutput = z
  .strictObject({ id: idOutput('cli') })
  .meta({ description: 'A client by id only (the caller may not read clients).' });

/** What `clients.delete` answers. */
export const clientDeletedOutput = deletedOutput('cli', 'client');
