import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { notInWorkspace } from '../shared/references';
import * as leads from '../../db/leads';
import { existsInWorkspace } from '../../db/references';
import { toPage } from '../../db/pagination';
import { idOf, objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import { leadCallOutput } from './lead.schema';

export const leadsGetCallsOutput = pageOutput(leadCallOutput);

export const leadsGetCallsInput = objectOf({ id: idOf('lead'), ...pageFields });

export const leadsGetCalls = defineProcedure({
  name: 'leads.getCalls',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: "A page of a lead's call history, newest first.",
  input: leadsGetCallsInput,
  output: leadsGetCallsOutput,
  async handler({ ctx, input }): Promise<z.input<typeof leadsGetCallsOutput>> {
    // A lead without calls is an empty page; one not in the workspace is a 404, never an empty page.
    if (!(await existsInWorkspace(ctx.db, 'leads', ctx.orgId, input.id))) throw notInWorkspace('leads', input.id);
    const page = { page: input.page, pageSize: input.pageSize };
    const { calls, total } = await leads.listCalls(ctx.db, ctx.orgId, input.id, page);
    return toPage(calls, total, page);
  },
});
