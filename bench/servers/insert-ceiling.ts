import express from 'express';
import * as contactsQueries from '../../src/db/queries/contacts.queries';
import * as leadsQueries from '../../src/db/queries/leads.queries';
import { serverSetup } from './server-env';

// The insert ceiling for leads.create: the same transaction (the contact answered by RETURNING,
// then the lead built from it, as leads.create does) through the same query functions, with none
// of the service's edge work (auth, validation, phone normalisation, envelope, helmet, logging)
// and no event recording.
const { db, port, host } = serverSetup();
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
    await insert;
    return lead;
  });
  res.json(lead);
});
app.listen(port, host);
