import { z } from 'zod';
import { idOutput, integerOutput, timestampOutput } from '../shared/output-fields';

/** An import job as every imports procedure (and the REST upload) answers it. */
export const importOutput = z.strictObject({
  id: idOutput('imp'),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).meta({
    description: 'queued until a worker takes it; running; then succeeded (rows may still have failed: see rows.failed), failed (the job itself, see failure) or cancelled (its committed rows stay).',
    examples: ['running'],
  }),
  resource: z.enum(['leads']).meta({ examples: ['leads'] }),
  mode: z.enum(['create', 'upsert']).meta({ description: 'create: every row a new lead; upsert: by externalId, create or change.', examples: ['create'] }),
  dryRun: z.boolean().meta({ description: 'Rows validated and counted, nothing written.', examples: [false] }),
  rows: z.strictObject({
    total: integerOutput(100_000).meta({ description: 'Rows in the file (a CSV header not counted).' }),
    processed: integerOutput(42_000).meta({ description: 'Rows done so far, written or failed.' }),
    created: integerOutput(41_950).meta({ description: 'Leads created (in a dry run: that would be).' }),
    updated: integerOutput(0).meta({ description: 'Leads changed by an upsert (in a dry run: that would be).' }),
    failed: integerOutput(50).meta({ description: 'Rows refused: GET /api/v1/imports/{id}/errors lists why.' }),
  }),
  failure: z.string().nullable().meta({ description: 'Why a failed import failed; null otherwise.', examples: [null] }),
  createdAt: timestampOutput(),
  finishedAt: timestampOutput().nullable(),
}).meta({ description: 'An import job: a file of rows written as leads in the background.' });
