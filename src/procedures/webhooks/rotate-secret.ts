import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import { newEndpointSecret } from '../../webhooks/endpoint-secret';
import { idOf, objectOf, wholeNumber } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { endpointRotatedOutput } from './endpoint.schema';

export const webhooksRotateSecretInput = objectOf({
  id: idOf('wh'),
  /** How long the replaced secret stays valid beside the new one (at most a day); 0: not at all. */
  expirePreviousInSeconds: wholeNumber(0, 86_400, 'a whole number of seconds', undefined, 3600).default(0),
});

export const webhooksRotateSecret = defineProcedure({
  name: 'webhooks.rotateSecret',
  method: 'POST',
  scope: 'webhooks.update',
  exposed: true,
  description: "Replaces a webhook endpoint's signing secret, answered only here; the previous one can stay valid for up to a day.",
  input: webhooksRotateSecretInput,
  output: endpointRotatedOutput,
  async handler({ ctx, input }) {
    const secret = newEndpointSecret();
    const rotated = await webhooksQueries.rotateSecret(ctx.db, ctx.orgId, input.id, secret, input.expirePreviousInSeconds);
    if (!rotated) throw notInWorkspace('webhookEndpoints', input.id);
    return { ...rotated.endpoint, secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt };
  },
});
