/** The typed client of the Workspace API: `createWorkspaceClient({ baseUrl, apiKey })`. */
export {
  createWorkspaceClient,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type EventsStreamClient,
  type EventsSubscribeOptions,
  type ImportsClient,
  type LeadsItemRestClient,
  type LeadsRestClient,
  type WorkspaceClient,
  type WorkspaceClientOptions,
} from './create-workspace-client.js';
export { WorkspaceApiError, type ApiFieldIssue, type WorkspaceApiErrorFields } from './workspace-api-error.js';
export type { Lead, LeadCreateInput, LeadsListFilters, LeadsPage, LeadsWalkFilters, LeadUpdateInput, LeadUpdateOptions, LeadUpsertInput, LeadWithEtag } from './leads-rest.js';
export type { Import, ImportCreateOptions, ImportFile, ImportWaitOptions } from './imports-rest.js';
export type { LeadsExportFilters, LeadsExportOptions } from './leads-export.js';
export type { ProcedureCall, ProcedureInput, ProcedureName, ProcedureOutput, SubscriptionInput, SubscriptionName, SubscriptionValue } from './procedures.js';
export { procedureMethods, type ProcedureWithOptionalInput } from './generated/procedure-methods.js';
export { subscriptions } from './generated/subscriptions.js';
export type { SubscriptionOptions } from './subscribe.js';
export {
  reviveEvent,
  type Client,
  type Contact,
  type Invoice,
  type LeadCall,
  type Task,
  type WebhookEndpoint,
  type WorkspaceEvent,
  type WorkspaceEventAsSent,
  type WorkspaceEventOf,
  type WorkspaceEventType,
} from './events.js';
export { constructWebhookEvent, WebhookSignatureError, type ConstructWebhookEventOptions } from './construct-webhook-event.js';
export type { FetchLike, FetchResponseLike, HttpMethod, RequestOptions } from './transport.js';
export type { AppRouter, AppRouterErrorShape } from './app-router.js';
export { verifyWebhookSignature, type SignatureProblem, type VerifyWebhookSignatureOptions } from './verify-webhook-signature.js';
