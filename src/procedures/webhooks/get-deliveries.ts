import { defineProcedure } from '../../rpc/define-procedure';
import * as webhooksQueries from '../../db/webhooks';
import * as deliveryLogQueries from '../../db/webhooks/delivery-log';
import { toPage } from '../../db/pagination';
import { enumOf, idOf, objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { notInWorkspace } from '../shared/references';
import { pageOutput } from '../shared/output-fields';
import { DELIVERY_STATUSES, deliveryOutput } from './delivery.schema';

export const webhooksGetDeliveriesInput = objectOf({
  id: idOf('wh'),
  status: enumOf(DELIVERY_STATUSES).optional(),
  ...pageFields,
});

export const webhooksGetDeliveriesOutput = pageOutput(deliveryOutput).meta({ description: "A page of a webhook endpoint's deliveries, newest first." });

export const webhooksGetDeliveries = defineProcedure({
  name: 'webhooks.getDeliveries',
  method: 'GET',
  scope: 'webhooks.read',
  exposed: true,
  description: "A page of a webhook endpoint's deliveries, newest first, each with its attempts (status code, duration, error, response excerpt).",
  input: webhooksGetDeliveriesInput,
  output: webhooksGetDeliveriesOutput,
  async handler({ ctx, input }) {
    const { id, status, page, pageSize } = input;
    if (!(await webhooksQueries.getById(ctx.db, ctx.orgId, id))) throw notInWorkspace('webhookEndpoints', id);
    const { deliveries, total } = await deliveryLogQueries.listDeliveries(ctx.db, ctx.orgId, id, { status }, { page, pageSize });
    return toPage(deliveries, total, { page, pageSize });
  },
});
