import * as createOrganisations from './20261123120000_create_organisations';
import * as createContactsClientsLeads from './20261123120100_create_contacts_clients_leads';
import * as createTasksInvoices from './20261123120200_create_tasks_invoices';
import * as createApiKeys from './20261123120300_create_api_keys';
import * as createLeadCalls from './20261123130000_create_lead_calls';
import * as indexLeadsConversion from './20261123144500_index_leads_conversion';
import * as createLeadCounts from './20261123150000_create_lead_counts';
import * as indexContactSearch from './20261123150100_index_contact_search';
import * as indexLeadsUnassigned from './20261123150200_index_leads_unassigned';
import * as notifyApiKeyChanges from './20261123160000_notify_api_key_changes';
import * as createIdempotencyKeys from './20261201120000_create_idempotency_keys';
import * as createEventsAndWebhooks from './20261202120000_create_events_and_webhooks';
import * as copyContactSearchToLeads from './20261203120000_copy_contact_search_to_leads';
import * as leadsSearchStatistics from './20261204120000_leads_search_statistics';
import * as storeLeadJson from './20261205120000_store_lead_json';
import * as indexSearchByWorkspace from './20261206120000_index_search_by_workspace';
import * as renderLeadJsonByKey from './20261207120000_render_lead_json_by_key';
import * as createDeferredIndexes from './20261208120000_create_deferred_indexes';
import * as distributeByWorkspace from './20261209120000_distribute_by_workspace';
import * as writesWithoutHotRows from './20261210120000_writes_without_hot_rows';
import * as dropLeadJsonRender from './20261210120100_drop_lead_json_render';
import * as fewerIndexWritesPerCreate from './20261211120000_fewer_index_writes_per_create';
import * as workspaceRowsWithoutOrganisationLocks from './20261211120100_workspace_rows_without_organisation_locks';
import * as externalIds from './20261212120000_external_ids';
import * as leadContactCheckedAtCommit from './20261212120100_lead_contact_checked_at_commit';
import * as createImports from './20261213120000_create_imports';
import * as createTrash from './20261214120000_create_trash';
import * as personalDataErasure from './20261214120100_personal_data_erasure';
import * as createRecordHistory from './20261214120200_create_record_history';
import * as historyCreationsInEvents from './20261214120300_history_creations_in_events';
import * as eventsTraceParent from './20261215120000_events_trace_parent';
import * as apiKeyPreviousSecret from './20261216120000_api_key_previous_secret';
import * as createApiKeyRequests from './20261216120100_create_api_key_requests';
import * as webhookRedeliveryAndStats from './20261216120200_webhook_redelivery_and_stats';
import * as requestLogKeyIndexAscending from './20261216120300_request_log_key_index_ascending';

/**
 * Every migration, in order. An explicit list rather than a scanned folder: it works the same
 * from TypeScript sources, compiled output and tests, and never picks up a stray `.d.ts`.
 */
export const MIGRATIONS = [
  { name: '20261123120000_create_organisations', module: createOrganisations },
  { name: '20261123120100_create_contacts_clients_leads', module: createContactsClientsLeads },
  { name: '20261123120200_create_tasks_invoices', module: createTasksInvoices },
  { name: '20261123120300_create_api_keys', module: createApiKeys },
  { name: '20261123130000_create_lead_calls', module: createLeadCalls },
  { name: '20261123144500_index_leads_conversion', module: indexLeadsConversion },
  { name: '20261123150000_create_lead_counts', module: createLeadCounts },
  { name: '20261123150100_index_contact_search', module: indexContactSearch },
  { name: '20261123150200_index_leads_unassigned', module: indexLeadsUnassigned },
  { name: '20261123160000_notify_api_key_changes', module: notifyApiKeyChanges },
  { name: '20261201120000_create_idempotency_keys', module: createIdempotencyKeys },
  { name: '20261202120000_create_events_and_webhooks', module: createEventsAndWebhooks },
  { name: '20261203120000_copy_contact_search_to_leads', module: copyContactSearchToLeads },
  { name: '20261204120000_leads_search_statistics', module: leadsSearchStatistics },
  { name: '20261205120000_store_lead_json', module: storeLeadJson },
  { name: '20261206120000_index_search_by_workspace', module: indexSearchByWorkspace },
  { name: '20261207120000_render_lead_json_by_key', module: renderLeadJsonByKey },
  { name: '20261208120000_create_deferred_indexes', module: createDeferredIndexes },
  { name: '20261209120000_distribute_by_workspace', module: distributeByWorkspace },
  { name: '20261210120000_writes_without_hot_rows', module: writesWithoutHotRows },
  { name: '20261210120100_drop_lead_json_render', module: dropLeadJsonRender },
  { name: '20261211120000_fewer_index_writes_per_create', module: fewerIndexWritesPerCreate },
  { name: '20261211120100_workspace_rows_without_organisation_locks', module: workspaceRowsWithoutOrganisationLocks },
  { name: '20261212120000_external_ids', module: externalIds },
  { name: '20261212120100_lead_contact_checked_at_commit', module: leadContactCheckedAtCommit },
  { name: '20261213120000_create_imports', module: createImports },
  { name: '20261214120000_create_trash', module: createTrash },
  { name: '20261214120100_personal_data_erasure', module: personalDataErasure },
  { name: '20261214120200_create_record_history', module: createRecordHistory },
  { name: '20261214120300_history_creations_in_events', module: historyCreationsInEvents },
  { name: '20261215120000_events_trace_parent', module: eventsTraceParent },
  { name: '20261216120000_api_key_previous_secret', module: apiKeyPreviousSecret },
  { name: '20261216120100_create_api_key_requests', module: createApiKeyRequests },
  { name: '20261216120200_webhook_redelivery_and_stats', module: webhookRedeliveryAndStats },
  { name: '20261216120300_request_log_key_index_ascending', module: requestLogKeyIndexAscending },
];
