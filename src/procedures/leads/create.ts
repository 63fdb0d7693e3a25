import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { INITIAL_LEAD_STATUSES } from '../../domain/lead-status';
import { uniqueInOrder } from '../../domain/phone';
import { enumOf, externalIdField, listOf, objectOf, requiredText, text } from '../shared/fields';
import { dateTimeField, emailField, phoneField } from '../shared/format-fields';
import { referenceTo } from '../shared/references';
import { newEvents } from '../../events/record-events';
import { leadCreatedEvents } from '../../events/lead-events';
import { leadOutput, type LeadOutput } from './lead.schema';

export const leadsCreateInput = objectOf({
  name: requiredText(200, { example: 'Ana Souza' }),
  /** The primary phone (read in the workspace's region, answered in E.164); `phones` adds more. */
  phone: phoneField,
  email: emailField.optional(),
  phones: listOf(phoneField, { of: 'phone numbers', max: 20 }).optional(),
  emails: listOf(emailField, { of: 'email addresses', max: 20 }).optional(),
  company: text(200, { example: 'Acme Ltd' }).nullable().optional(),
  source: text(200, { example: 'website' }).nullable().optional(),
  notes: text(10_000, { example: 'Asked for a call back after 3 pm' }).nullable().optional(),
  status: enumOf(INITIAL_LEAD_STATUSES).optional(),
  nextCallAt: dateTimeField.nullable().optional(),
  assignedToId: referenceTo('orgMembers').nullable().optional(),
  /** Your own id for the lead; one another lead of the workspace holds is a 409. */
  externalId: externalIdField.optional(),
});

export const leadsCreate = defineProcedure({
  name: 'leads.create',
  method: 'POST',
  scope: 'leads.create',
  exposed: true,
  description: 'Creates a lead and its contact; phones are stored in E.164, emails lowercased.',
  input: leadsCreateInput,
  output: leadOutput,
  async handler({ ctx, input }): Promise<LeadOutput> {
    const phones = uniqueInOrder([input.phone, ...(input.phones ?? [])]);
    const emails = uniqueInOrder([...(input.email ? [input.email] : []), ...(input.emails ?? [])]);
    const created = leads.newLead({ name: input.name, phones, emails, company: input.company ?? null }, {
      status: input.status ?? 'NOT_CONTACTED',
      source: input.source ?? null,
      notes: input.notes ?? null,
      nextCallAt: input.nextCallAt ?? null,
      assignedToId: input.assignedToId ?? null,
      clientId: null,
      externalId: input.externalId ?? null,
    });
    // One statement (its rows, its events and their deliveries): atomic without a transaction.
    // The events' rows are built here (newEvents marks ctx.effects: live readers are woken after the commit).
    await leads.createLead(ctx.db, ctx.orgId, created.lead, newEvents(ctx, leadCreatedEvents(created)));
    return created.lead;
  },
});
