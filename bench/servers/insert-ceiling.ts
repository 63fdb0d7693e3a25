import express from 'express';
import * as contactsQueries from '../../src/db/queries/contacts.queries';
import * as leadsQueries from '../../src/db/queries/leads.queries';
import { recordEvents } from '../../src/events/record-events';
import { serverSetup } from './server-env';

// The insert ceiling for leads.create: the same transaction (the contact answered by RETURNING,
// then the lead built from it, as leads.create does) through the same query functions, with none
// of the service's edge work (auth, validation, phone normalisation, envelope, helmet, logging).
// With WITH_EVENTS=1 the lead is written beside its two events in one statement, exactly the
// inserts leads.create makes since events were added; without, the contact and lead alone.
const { db, port, host } = serverSetup();
const withEvents = process.env.WITH_EVENTS === '1';
const actor = { kind: 'apiKey', id: 'insert-ceiling' };
const app = express();
app.use(express.json());
app.post('/leads/:orgId', async (req, res) => {
  const orgId = req.params.orgId;
  const body = req.body as { name: string; phone: string };
  const lead = await db.transaction(async (trx) => {
    const contact = await contactsQueries.insert(trx, orgId, { name: body.name, phones: [body.phone], emails: [], company: null });
    const { lead, insert } = leadsQueries.newLeadOf(trx, orgId, contact, {
      status: 'NOT_CONTACTED', source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null,
    });
    if (withEvents) await recordEvents(trx, { orgId, actor }, [{ type: 'contact.created', object: contact }, { type: 'lead.created', object: lead }], insert);
    else await insert;
    return lead;
  });
  res.json(lead);
});
app.listen(port, host);
