import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as leads from '../../db/leads';
import type { ExportFormat, LeadExport } from '../../db/leads';
import { leadsExportInput, toLeadListFilters } from './lead-list.schema';

/** An export that has started: the route streams `bytes` as `format` says, then finishes or aborts it. */
export interface OpenedExport extends LeadExport {
  format: ExportFormat;
}

/**
 * `GET /api/v1/leads/export` as a procedure, so it comes through runProcedure as the REST list does
 * (scope, the workspace's node, the same filters and messages). Its handler only opens the export
 * (a connection, a snapshot, COPY's first bytes): the route streams the rest. Not in the
 * registry: its answer is a file, no envelope's. Open to every tier, as the REST list is.
 */
export const leadsExport = defineProcedure({
  name: 'leads.export',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'GET /api/v1/leads/export: every lead the filters match, as CSV or NDJSON, from one snapshot.',
  input: leadsExportInput,
  output: z.custom<OpenedExport>((value) => typeof value === 'object' && value !== null && 'bytes' in value),
  async handler({ ctx, input }): Promise<OpenedExport> {
    const opened = await leads.openExport(ctx.db, ctx.orgId, toLeadListFilters(input), input.format);
    return { ...opened, format: input.format };
  },
});
