import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { DEFAULT_PREVIOUS_SECRET_SECONDS, MAX_PREVIOUS_SECRET_SECONDS, rollApiKey } from '../../auth/api-keys';
import { idOf, objectOf, wholeNumber } from '../shared/fields';
import { toKeyListing } from './key-listing';
import { apiKeyRolledOutput } from './api-key.schema';

export const apiKeysRoll = defineProcedure({
  name: 'apiKeys.roll',
  method: 'POST',
  // Rolling hands out a working secret with the key's scopes, as creating a key does: the same
  // scope, so a holder of apiKeys.update (revoke) alone cannot obtain a secret.
  scope: 'apiKeys.create',
  exposed: false,
  description:
    'Gives a key a new secret (same id, name, scopes and expiry), answered once, here; the previous secret keeps working for expirePreviousInSeconds (default a day, at most 7 days, 0: not at all), and any older previous secret stops at once (app only).',
  input: objectOf({
    id: idOf('key'),
    expirePreviousInSeconds: wholeNumber(0, MAX_PREVIOUS_SECRET_SECONDS, 'a whole number of seconds', undefined, 3600).default(DEFAULT_PREVIOUS_SECRET_SECONDS),
  }),
  output: apiKeyRolledOutput,
  async handler({ ctx, input }): Promise<z.input<typeof apiKeyRolledOutput>> {
    const rolled = await rollApiKey(ctx.db, ctx.orgId, input.id, input.expirePreviousInSeconds);
    return { ...toKeyListing(rolled), key: rolled.key, previousSecretExpiresAt: rolled.previousSecretExpiresAt };
  },
});
