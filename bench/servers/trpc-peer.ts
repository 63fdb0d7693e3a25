import express from 'express';
import superjson from 'superjson';
import { z } from 'zod';
import { initTRPC, TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import * as leads from '../../src/db/leads';
import { serverSetup } from './server-env';

// The peer a user would pick instead: tRPC v11's express adapter with the superjson transformer,
// serving the same query (the workspace comes in the input: no auth, as in the ceiling).
const { db, hotReads, port, host } = serverSetup();
const t = initTRPC.create({ transformer: superjson });
const router = t.router({
  leads: t.router({
    getById: t.procedure.input(z.object({ orgId: z.string(), id: z.string() })).query(async ({ input }) => {
      const lead = await leads.getById(db, hotReads, input.orgId, input.id);
      if (!lead) throw new TRPCError({ code: 'NOT_FOUND' });
      return lead;
    }),
  }),
});
const app = express();
app.use('/trpc', createExpressMiddleware({ router }));
app.listen(port, host);
