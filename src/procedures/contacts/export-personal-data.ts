import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { readPersonalData } from '../../db/erasure/personal-data';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { contactOutput } from './contact.schema';
import { leadCallOutput, leadOutput } from '../leads/lead.schema';
import { taskOutput } from '../tasks/task.schema';
import { clientOutput } from '../clients/client.schema';
import { eventOutput } from '../events/event.schema';
import { readableBy } from '../events/get-all';
import { historyEntryOutput } from '../shared/history-procedure';

export const personalDataOutput = z
  .strictObject({
    contact: contactOutput,
    leads: z.array(leadOutput).meta({ description: "The contact's leads, oldest first." }),
    calls: z.array(leadCallOutput).meta({ description: "The calls logged on those leads, oldest first." }),
    tasks: z.array(taskOutput).meta({ description: 'The tasks linked to those leads, oldest first.' }),
    clients: z.array(clientOutput).meta({ description: 'The clients linked to the contact, oldest first.' }),
    events: z.array(eventOutput).meta({ description: 'The events that name the person (the contact or its leads, deleted ones included), oldest first.' }),
    history: z.array(historyEntryOutput.extend({
      resource: z.enum(['lead', 'contact']).meta({ description: 'What the entry is about: the contact, or one of its leads.' }),
      recordId: z.string().meta({ description: "The contact's or the lead's id.", examples: ['lead_3kTMd9VbX2qLr7NwY5pHcZ'] }),
    })).meta({ description: "The change history of the contact and its leads (deleted ones included), newest first." }),
  })
  .meta({ description: 'Everything the workspace holds about one person (GDPR articles 15 and 20).' });

export const contactsExportPersonalData = defineProcedure({
  name: 'contacts.exportPersonalData',
  method: 'GET',
  scope: 'contacts.read',
  // It answers the person's leads (with their calls), tasks, clients and events: a key sees no
  // resource it cannot read (tests/integration/embedded-resources.test.ts), so it needs their read scopes too.
  alsoScopes: ['leads.read', 'tasks.read', 'clients.read', 'events.read'],
  exposed: true,
  description:
    'Everything the service holds about a person, in one JSON document: the contact, its leads, their calls and tasks, ' +
    'the clients linked to it, the events that name it and the change history of the contact and its leads (GDPR articles 15 and 20).',
  input: objectOf({ id: idOf('con') }),
  output: personalDataOutput,
  async handler({ ctx, input }): Promise<z.input<typeof personalDataOutput>> {
    // One snapshot, so the parts agree with each other.
    const data = await ctx.db.transaction((trx) => readPersonalData(trx, ctx.orgId, input.id), { isolationLevel: 'repeatable read' });
    if (!data) throw notInWorkspace('contacts', input.id);
    return { ...data, events: data.events.map((event) => readableBy(ctx.scopes, event)) };
  },
});
