import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { issueApiKey } from '../../auth/api-keys';
import { objectOf, requiredText } from '../shared/fields';
import { dateTimeWhere } from '../shared/format-fields';
import { scopeListField } from '../shared/scope-fields';
import { KNOWN_SCOPES } from '../../auth/scopes';
import { toKeyListing } from './key-listing';
import { apiKeyCreatedOutput } from './api-key.schema';

export const apiKeysCreate = defineProcedure({
  name: 'apiKeys.create',
  method: 'POST',
  scope: 'apiKeys.create',
  exposed: false,
  description: 'Issues an API key with the given scopes; its secret is answered once, here (app only).',
  input: objectOf({
    name: requiredText(200, { example: 'Zapier sync' }),
    scopes: scopeListField(),
    expiresAt: dateTimeWhere((date) => date.getTime() > Date.now(), 'a date-time in the future').nullable().optional(),
  }),
  output: apiKeyCreatedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof apiKeyCreatedOutput>> {
    const issued = await issueApiKey(ctx.db, KNOWN_SCOPES, {
      orgId: ctx.orgId,
      memberId: null,
      name: input.name,
      scopes: input.scopes,
      expiresAt: input.expiresAt ?? null,
    });
    return { ...toKeyListing(issued), key: issued.key };
  },
});
