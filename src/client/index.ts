/** The typed client of the Workspace API: `createWorkspaceClient({ baseUrl, apiKey })`. */
export { createWorkspaceClient, type WorkspaceClient, type WorkspaceClientOptions, type LeadsRestClient } from './create-workspace-client';
export { WorkspaceApiError, type ApiFieldIssue } from './workspace-api-error';
export type { Lead, LeadsPage, LeadsListFilters, LeadsWalkFilters } from './leads-list';
export type { ProcedureName, ProcedureInput, ProcedureOutput } from './registry-types';
export type { FetchLike } from './transport';
export { verifyWebhookSignature, type VerifyWebhookSignatureOptions } from './verify-webhook-signature';
