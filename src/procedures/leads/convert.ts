import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import * as clientsQueries from '../../db/clients';
import type { Db } from '../../db/knex';
import { assertCanConvert } from '../../domain/lead-status';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace, referenceTo } from '../shared/references';
import { recordEvents } from '../../events/record-events';
import { leadWriteEvents } from '../../events/lead-events';
import { embedIfReadable } from '../../auth/readable-embeds';
import { clientOutput, clientReferenceOutput } from '../clients/client.schema';
import { leadOutput } from './lead.schema';

export const leadsConvertInput = objectOf({
  id: idOf('lead'),
  /** An existing client to link; without it the lead's linked client, or a new one from its contact. */
  clientId: referenceTo('clients').optional(),
});

/** The converted lead, and its client: whole for a key with `clients.read`, else by id only. */
export const leadsConvertOutput = z
  .strictObject({ lead: leadOutput, client: z.union([clientOutput, clientReferenceOutput]) })
  .meta({ description: 'The lead, now CONVERTED, and the client it is linked to.' });

export const leadsConvert = defineProcedure({
  name: 'leads.convert',
  method: 'POST',
  scope: 'leads.update',
  exposed: true,
  description: 'Converts a lead: links the given client or creates one from its contact, and sets CONVERTED (final). The answer carries the client whole for a key with clients.read, else its id only.',
  input: leadsConvertInput,
  output: leadsConvertOutput,
  async handler({ ctx, input }): Promise<z.input<typeof leadsConvertOutput>> {
    return ctx.db.transaction(async (trx) => {
      const lead = await leads.lockLead(trx, ctx.orgId, input.id);
      if (!lead) throw notInWorkspace('leads', input.id);
      assertCanConvert(lead.status);
      const { client, created } = await clientFor(trx, ctx.orgId, lead, input.clientId);
      // The one write that makes a lead CONVERTED: it links the client and records when.
      const written = (await leads.updateLead(trx, ctx.orgId, lead.id, { fields: { status: 'CONVERTED', clientId: client.id }, convertedNow: true }))!;
      const converted = written.lead;
      await recordEvents(trx, ctx, [
        ...(created ? [{ type: 'client.created' as const, object: client }] : []),
        { type: 'lead.converted', object: converted, details: { client } },
        ...leadWriteEvents(written),
      ]);
      // The client whole only for a key that may read clients; otherwise its id.
      return { lead: converted, client: embedIfReadable(ctx.scopes, 'clients.read', client) };
    });
  },
});

async function clientFor(
  trx: Db,
  orgId: string,
  lead: leads.Lead,
  clientId: string | undefined,
): Promise<{ client: clientsQueries.Client; created: boolean }> {
  const linkedId = clientId ?? lead.clientId;
  if (linkedId) {
    const client = await clientsQueries.getById(trx, orgId, linkedId);
    if (client) return { client, created: false };
    // A lead's own link cannot dangle (the foreign key clears it), and a given id was checked
    // before the call: only one deleted since gets here.
    throw notInWorkspace('clients', linkedId, 'clientId');
  }
  const client = await clientsQueries.insert(trx, orgId, {
    name: lead.name,
    contactId: lead.contactId,
    company: lead.company,
    email: lead.primaryEmail,
    phone: lead.primaryPhone,
    notes: null,
  });
  return { client, created: true };
}
