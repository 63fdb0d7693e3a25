import { defineProcedure } from '../../rpc/define-procedure';
import * as apiKeysQueries from '../../db/api-keys';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from '../shared/fields';
import { toKeyListing } from './key-listing';

export const apiKeysRevoke = defineProcedure({
  name: 'apiKeys.revoke',
  method: 'POST',
  scope: 'apiKeys.update',
  exposed: false,
  description: 'Revokes a key of the workspace; it stops working at once on every instance; revoking twice keeps the first time (app only).',
  input: objectOf({ id: idOf('key') }),
  async handler({ ctx, input }) {
    const revoked = await apiKeysQueries.revokeInOrg(ctx.db, ctx.orgId, input.id);
    if (!revoked) throw new AppError('NOT_FOUND', `No API key ${JSON.stringify(input.id)} in this workspace`);
    return toKeyListing(revoked);
  },
});
