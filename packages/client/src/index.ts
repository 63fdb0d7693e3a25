/** The typed client of the Workspace API: `createWorkspaceClient({ baseUrl, apiKey })`. */
export {
  createWorkspaceClient,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type LeadsItemRestClient,
  type LeadsRestClient,
  type WorkspaceClient,
  type WorkspaceClientOptions,
} from './create-workspace-client.js';
export { WorkspaceApiError, type ApiFieldIssue, type WorkspaceApiErrorFields } from './workspace-api-error.js';
export type { Lead, LeadCreateInput, LeadsListFilters, LeadsPage, LeadsWalkFilters, LeadUpdateInput, LeadUpdateOptions, LeadWithEtag } from './leads-rest.js';
export type { ProcedureCall, ProcedureInput, ProcedureName, ProcedureOutput } from './procedures.js';
export { procedureMethods, type ProcedureWithOptionalInput } from './generated/procedure-methods.js';
export type { FetchLike, FetchResponseLike, HttpMethod, RequestOptions } from './transport.js';
export type { AppRouter, AppRouterErrorShape } from './app-router.js';
export { verifyWebhookSignature, type VerifyWebhookSignatureOptions } from './verify-webhook-signature.js';
