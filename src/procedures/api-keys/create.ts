import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { issueApiKey } from '../../auth/api-keys';
import { invalidInput } from '../../errors/app-error';
import { dateTimeField, requiredText } from '../shared/fields';
import { scopeListField } from '../shared/scope-fields';
import { knownScopes } from '../scopes';
import { toKeyListing } from './key-listing';

export const apiKeysCreate = defineProcedure({
  name: 'apiKeys.create',
  method: 'POST',
  scope: 'apiKeys.create',
  exposed: false,
  description: 'Issues an API key with the given scopes; its secret is answered once, here (app only).',
  input: z.strictObject({
    name: requiredText(200),
    scopes: scopeListField(),
    expiresAt: dateTimeField.nullable().optional(),
  }),
  async handler({ ctx, input }) {
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw invalidInput([{ path: ['expiresAt'], message: 'must be in the future' }]);
    }
    const issued = await issueApiKey(ctx.db, knownScopes(), {
      orgId: ctx.orgId,
      memberId: null,
      name: input.name,
      scopes: input.scopes,
      expiresAt: input.expiresAt ?? null,
    });
    return { ...toKeyListing(issued), key: issued.key };
  },
});
