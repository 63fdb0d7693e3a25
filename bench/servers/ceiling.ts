import express from 'express';
import * as leads from '../../src/db/leads';
import { createHttpServer } from '../../src/server/http-server';
import { serverSetup } from './server-env';

// The stack's ceiling for leads.getById: Express 5 and the very same knex query, nothing else
// (no auth, no envelope, no helmet, no logging).
const { db, hotReads, port, host } = serverSetup();
const app = express();
app.get('/leads/:orgId/:id', async (req, res) => {
  const lead = await leads.getById(db, hotReads, req.params.orgId, req.params.id);
  if (!lead) res.status(404).json({ error: 'not found' });
  else res.json(lead);
});
// HTTP_SERVER=service: the server ours listens with (requests born on Express's prototypes).
if (process.env.HTTP_SERVER === 'service') createHttpServer(app).listen(port, host);
else app.listen(port, host);
