import { z } from 'zod';
import { defineProcedure, type ProcedureContext } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import { AppError } from '../../errors/app-error';
import { assertStatusChangeAllowed } from '../../domain/lead-status';
import { uniqueInOrder } from '../../domain/phone';
import { externalIdField, objectOf } from '../shared/fields';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { newEvents, type EventSource } from '../../events/record-events';
import { leadCreatedEvents, leadWriteEvents } from '../../events/lead-events';
import { leadsCreateInput } from './create';
import { leadOutput, type LeadOutput } from './lead.schema';

const { externalId: _createsExternalId, ...createFields } = leadsCreateInput.shape;

/** The lead's external id, then leads.create's fields; `expectedUpdatedAt` only changes a lead that exists. */
export const leadsUpsertInput = objectOf({
  externalId: externalIdField,
  ...createFields,
  /** The `updatedAt` the caller last read of the lead holding the id: changed since (or no such lead) is a 409, nothing written. */
  expectedUpdatedAt: expectedUpdatedAtField,
});

export type LeadsUpsertInput = z.output<typeof leadsUpsertInput>;

/** The Lead and whether this call created it. */
export const leadUpsertedOutput = leadOutput
  .extend({ created: z.boolean().meta({ description: 'true when this call created the lead, false when it changed the one holding the external id.', examples: [true] }) })
  .meta({ description: 'The lead as leads.upsert left it, and whether it created it.' });

export const leadsUpsert = defineProcedure({
  name: 'leads.upsert',
  method: 'POST',
  scope: 'leads.create',
  alsoScopes: ['leads.update'],
  exposed: true,
  description: 'Creates a lead with this externalId, or changes the one that holds it (given fields replace, absent ones stay); answers it with `created`.',
  input: leadsUpsertInput,
  output: leadUpsertedOutput,
  async handler({ ctx, input }): Promise<LeadOutput & { created: boolean }> {
    const upserted = await upsertFromInput(ctx, input);
    return { ...upserted.lead, created: upserted.created };
  },
});

/**
 * On a create, the lead is leads.create's; on a change, leads.update's with these fields: `name`
 * and the phones (`phone` then `phones`) always replace the stored ones, the emails (`email` then
 * `emails`) when either is given, and `company`, `source`, `notes`, `status`, `nextCallAt` and
 * `assignedToId` when present (null clears); the client link and the contact's other leads stay.
 */
async function upsertFromInput(ctx: ProcedureContext, input: LeadsUpsertInput): Promise<{ lead: leads.Lead; created: boolean }> {
  const { phones, emails } = phonesAndEmailsOf(input);
  // A caller naming a version of the lead wants that lead changed, never a new one made.
  const created = input.expectedUpdatedAt === undefined ? leads.newLead({ name: input.name, phones, emails, company: input.company ?? null }, {
    status: input.status ?? 'NOT_CONTACTED',
    source: input.source ?? null,
    notes: input.notes ?? null,
    nextCallAt: input.nextCallAt ?? null,
    assignedToId: input.assignedToId ?? null,
    clientId: null,
    externalId: input.externalId,
  }) : undefined;
  const upserted = await leads.upsertLead(ctx.db, ctx.orgId, {
    externalId: input.externalId,
    // Built before the statement, as leads.create's are; a call that changes a lead wakes live readers too.
    create: created && { lead: created.lead, events: newEvents(ctx, leadCreatedEvents(created)) },
    ...heldLeadChange(input, ctx),
  });
  if (!upserted) {
    throw new AppError('CONFLICT', `No lead of this workspace holds externalId ${JSON.stringify(input.externalId)}: expectedUpdatedAt names a version of one that is not there`);
  }
  return upserted.created ? { lead: upserted.lead, created: true } : { lead: upserted.write.lead, created: false };
}

/**
 * What an upsert does to the lead holding the id (leads.upsert, an import's upsert rows): the
 * change of its fields, the checks that may refuse it, and its events, recorded as `source`.
 */
export function heldLeadChange(input: LeadsUpsertInput, source: EventSource): Pick<Parameters<typeof leads.upsertLead>[2], 'change' | 'check' | 'changeEvents'> {
  const { phones, emails, emailsGiven } = phonesAndEmailsOf(input);
  return {
    change: {
      person: { name: input.name, phones, emails: emailsGiven ? emails : undefined, company: input.company },
      fields: { status: input.status, source: input.source, notes: input.notes, nextCallAt: input.nextCallAt, assignedToId: input.assignedToId },
    },
    check: (before) => {
      assertUnchangedSince('lead', before.updatedAt, input.expectedUpdatedAt);
      if (input.status) assertStatusChangeAllowed(before.status, input.status);
    },
    changeEvents: (written) => newEvents(source, leadWriteEvents(written)),
  };
}

/** The input's phones (`phone` then `phones`) and emails (`email` then `emails`), each once in order, and whether any email was given. */
function phonesAndEmailsOf(input: LeadsUpsertInput): { phones: string[]; emails: string[]; emailsGiven: boolean } {
  return {
    phones: uniqueInOrder([input.phone, ...(input.phones ?? [])]),
    emails: uniqueInOrder([...(input.email ? [input.email] : []), ...(input.emails ?? [])]),
    emailsGiven: input.email !== undefined || input.emails !== undefined,
  };
}
