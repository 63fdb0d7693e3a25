import { z } from 'zod';
import { isSupportedCountry } from 'libphonenumber-js';
import { defineProcedure } from '../../rpc/define-procedure';
import * as orgsQueries from '../../db/orgs';
import { AppError } from '../../errors/app-error';
import { objectOf, requiredText, withKind } from '../shared/fields';
import { expected } from '../shared/expected';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { organisationOutput, type OrganisationOutput } from './organisation.schema';

/** A region phones can be read in: an ISO 3166 code that libphonenumber knows (so `ZZ` is refused). */
const REGION = 'a two-letter country code phone numbers can be read in, e.g. GB';
const phoneRegionField = withKind(
  'region',
  z
    .string({ error: (issue) => expected(REGION, issue.input) })
    .max(16)
    .trim()
    .toUpperCase()
    .refine((region) => /^[A-Z]{2}$/.test(region) && isSupportedCountry(region))
    .meta({ examples: ['GB'] }),
);

export const organisationUpdate = defineProcedure({
  name: 'organisation.update',
  method: 'POST',
  scope: 'organisation.update',
  // The workspace's own settings are changed in the app, never by an API key.
  exposed: false,
  description: "Changes the workspace's name or default phone region (app only).",
  input: objectOf({
    name: requiredText(200, { example: 'Acme Ltd' }).optional(),
    phoneRegion: phoneRegionField.optional(),
    expectedUpdatedAt: expectedUpdatedAtField,
  }),
  output: organisationOutput,
  async handler({ ctx, input }): Promise<OrganisationOutput> {
    return ctx.db.transaction(async (trx) => {
      const current = await orgsQueries.lockForUpdate(trx, ctx.orgId);
      if (!current) throw new AppError('NOT_FOUND', 'No such workspace');
      assertUnchangedSince('workspace', current.updatedAt, input.expectedUpdatedAt);
      return (await orgsQueries.update(trx, ctx.orgId, { name: input.name, phoneRegion: input.phoneRegion }))!;
    });
  },
});
