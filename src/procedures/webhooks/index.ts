import { webhooksGetAll } from './get-all';
import { webhooksGetById } from './get-by-id';
import { webhooksCreate } from './create';
import { webhooksUpdate } from './update';
import { webhooksRotateSecret } from './rotate-secret';
import { webhooksDelete } from './delete';
import { webhooksGetDeliveries } from './get-deliveries';
import { webhooksRedeliver } from './redeliver';
import { webhooksSendTestEvent } from './send-test-event';

export const webhooksProcedures = [
  webhooksGetAll, webhooksGetById, webhooksCreate, webhooksUpdate, webhooksRotateSecret, webhooksDelete, webhooksGetDeliveries,
  webhooksRedeliver, webhooksSendTestEvent,
] as const;
