import { z } from 'zod';
import { CALL_OUTCOMES, LEAD_STATUSES } from '../../domain/lead-status';
import { deletedOutput, emailOutput, externalIdOutput, idOutput, phoneOutput, textOutput, timestampOutput } from '../shared/output-fields';

// What the leads procedures answer with (src/db/leads/shape.ts `toLead`, calls.ts `toLeadCall`).
// The examples describe one lead: Ana Souza of Acme Ltd, contacted once, next call on 3 December.

/** The Lead of the spec: its 16 fields and `externalId` (docs/decisions.md, "External ids"), always present. */
export const leadOutput = z
  .strictObject({
    id: idOutput('lead'),
    name: textOutput('Ana Souza').meta({ description: "The contact's name." }),
    phones: z.array(phoneOutput).meta({ description: 'E.164, the primary first.', examples: [['+447400123456']] }),
    emails: z.array(emailOutput).meta({ description: 'Lowercased, the primary first.', examples: [['ana@example.com']] }),
    primaryPhone: phoneOutput.nullable().meta({ description: 'The first of `phones`, or null.' }),
    primaryEmail: emailOutput.nullable().meta({ description: 'The first of `emails`, or null.' }),
    contactId: idOutput('con').meta({ description: "The contact behind the lead (name, phones, emails and company are the contact's)." }),
    company: textOutput('Acme Ltd').nullable(),
    source: textOutput('website').nullable().meta({ description: 'Free-text source label.' }),
    status: z.enum(LEAD_STATUSES).meta({ examples: ['CONTACTED'] }),
    notes: textOutput('Interested in the annual plan; call back on Thursday').nullable(),
    nextCallAt: timestampOutput('2026-12-03T10:00:00.000Z').nullable().meta({ description: 'When the next call is scheduled, or null.' }),
    createdAt: timestampOutput('2026-11-20T14:05:00.000Z'),
    updatedAt: timestampOutput('2026-11-26T09:30:00.000Z'),
    assignedToId: idOutput('mem').nullable().meta({ description: 'The member the lead is assigned to, or null.' }),
    clientId: idOutput('cli').nullable().meta({ description: 'The client the lead is linked to (set by converting it), or null.' }),
    externalId: externalIdOutput,
  })
  .meta({ description: 'A lead: a person to call (its contact) and where the calling stands.' });

export type LeadOutput = z.input<typeof leadOutput>;

/** One logged call attempt on a lead. */
export const leadCallOutput = z
  .strictObject({
    id: idOutput('call'),
    leadId: idOutput('lead'),
    outcome: z.enum(CALL_OUTCOMES).meta({ description: "The lead's status after the call.", examples: ['CONTACTED'] }),
    notes: textOutput('Interested in the annual plan; call back on Thursday').nullable(),
    nextCallAt: timestampOutput('2026-12-03T10:00:00.000Z').nullable().meta({ description: 'The next call scheduled with this one, or null.' }),
    loggedBy: idOutput('key').meta({ description: "Who logged it: the actor's id (an API key's id through the API)." }),
    createdAt: timestampOutput('2026-11-26T09:30:00.000Z'),
  })
  .meta({ description: "A call attempt logged on a lead, as the lead's call history shows it." });

/** What `leads.delete` answers. */
export const leadDeletedOutput = deletedOutput('lead', 'lead');
