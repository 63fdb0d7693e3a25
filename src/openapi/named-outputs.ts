import type { z } from 'zod';
import { leadCallOutput, leadOutput } from '../procedures/leads/lead.schema';
import { leadsGetAllOutput } from '../procedures/leads/get-all';
import { contactOutput } from '../procedures/contacts/contact.schema';
import { clientOutput } from '../procedures/clients/client.schema';
import { taskOutput } from '../procedures/tasks/task.schema';
import { invoiceItemOutput, invoiceOutput } from '../procedures/invoices/invoice.schema';
import { memberOutput } from '../procedures/org-members/member.schema';
import { eventOutput } from '../procedures/events/event.schema';
import { eventSchemaName, typedEventSchemas } from '../procedures/events/typed-events.schema';
import { endpointOutput } from '../procedures/webhooks/endpoint.schema';
import { deliveryAttemptOutput, deliveryOutput } from '../procedures/webhooks/delivery.schema';
import { cursorPaginationOutput, paginationOutput } from '../procedures/shared/output-fields';
import { importOutput } from '../procedures/imports/import.schema';

/**
 * The resources every output refers to by name (`#/components/schemas/Lead`), so a generated
 * client has one Lead type rather than one per procedure. An output schema not listed here is
 * written out under its procedure's name (`leads.logCall.output`).
 */
export const NAMED_OUTPUTS: ReadonlyArray<readonly [z.ZodType, string]> = [
  [leadOutput, 'Lead'],
  // The REST list answers the same page as leads.getAll.
  [leadsGetAllOutput, 'LeadPage'],
  [leadCallOutput, 'LeadCall'],
  [contactOutput, 'Contact'],
  [clientOutput, 'Client'],
  [taskOutput, 'Task'],
  [invoiceOutput, 'Invoice'],
  [invoiceItemOutput, 'InvoiceItem'],
  [memberOutput, 'OrgMember'],
  // Written as the union of the typed events below (event-webhooks.ts): what each type carries.
  [eventOutput, 'Event'],
  ...typedEventSchemas.map((schema) => [schema, eventSchemaName(schema.shape.type.value)] as const),
  [endpointOutput, 'WebhookEndpoint'],
  [deliveryOutput, 'WebhookDelivery'],
  [deliveryAttemptOutput, 'WebhookDeliveryAttempt'],
  [importOutput, 'Import'],
  [paginationOutput, 'Pagination'],
  [cursorPaginationOutput, 'CursorPagination'],
];
