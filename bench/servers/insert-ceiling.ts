import express from 'express';
import * as leads from '../../src/db/leads';
import { newEvents } from '../../src/events/record-events';
import { leadCreatedEvents } from '../../src/events/lead-events';
import { serverSetup } from './server-env';

// The insert ceiling for leads.create: the same transaction (the leads' write unit's createLead:
// the contact, the lead, its stored JSON and counters, as leads.create does) through the same
// data modules, with none of the service's edge work (auth, validation, phone
// normalisation, envelope, helmet, logging). With WITH_EVENTS=1 its two events are recorded too,
// exactly the writes leads.create makes; without, the contact and lead alone.
const { db, port, host } = serverSetup();
const withEvents = process.env.WITH_EVENTS === '1';
const actor = { kind: 'apiKey', id: 'insert-ceiling' };
const app = express();
app.use(express.json());
app.post('/leads/:orgId', async (req, res) => {
  const orgId = req.params.orgId;
  const body = req.body as { name: string; phone: string };
  const lead = await db.transaction(async (trx) => {
    const created = leads.newLead({ name: body.name, phones: [body.phone], emails: [], company: null }, {
      status: 'NOT_CONTACTED', source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null,
    });
    await leads.createLead(trx, orgId, created.lead, withEvents ? newEvents({ orgId, actor }, leadCreatedEvents(created)) : []);
    return created.lead;
  });
  res.json(lead);
});
app.listen(port, host);
