import { defineProcedure } from '../../rpc/define-procedure';
import * as apiKeysQueries from '../../db/api-keys';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from '../shared/fields';
import { toKeyListing } from './key-listing';
import { apiKeyOutput, type ApiKeyOutput } from './api-key.schema';

export const apiKeysRevoke = defineProcedure({
  name: 'apiKeys.revoke',
  method: 'POST',
  scope: 'apiKeys.update',
  exposed: false,
  description: 'Revokes a key of the workspace; it stops working at once on every instance; revoking twice keeps the first time (app only).',
  input: objectOf({ id: idOf('key') }),
  output: apiKeyOutput,
  async handler({ ctx, input }): Promise<ApiKeyOutput> {
    const revoked = await apiKeysQueries.revokeInOrg(ctx.db, ctx.orgId, input.id);
    if (!revoked) throw new AppError('NOT_FOUND', `No API key ${JSON.stringify(input.id)} in this workspace`);
    return toKeyListing(revoked);
  },
});
