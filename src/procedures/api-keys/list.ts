import { defineProcedure } from '../../rpc/define-procedure';
import * as apiKeysQueries from '../../db/api-keys';
import { objectOf } from '../shared/fields';
import { toKeyListing } from './key-listing';
import { apiKeyListOutput, type ApiKeyOutput } from './api-key.schema';

export const apiKeysList = defineProcedure({
  name: 'apiKeys.list',
  method: 'GET',
  scope: 'apiKeys.read',
  // Key management belongs to the developer page of the app: a key must not mint or list keys.
  exposed: false,
  description: "The workspace's API keys, newest first: prefixes and scopes, never secrets (app only).",
  input: objectOf({}).optional(),
  output: apiKeyListOutput,
  async handler({ ctx }): Promise<ApiKeyOutput[]> {
    return (await apiKeysQueries.listByOrg(ctx.db, ctx.orgId)).map(toKeyListing);
  },
});
