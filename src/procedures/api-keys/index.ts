import { apiKeysList } from './list';
import { apiKeysCreate } from './create';
import { apiKeysRevoke } from './revoke';
import { apiKeysRoll } from './roll';
import { apiKeysGetRequests } from './get-requests';

/** App-only (exposed: false): through the API these answer 403 whatever the key's scopes. */
export const apiKeysProcedures = [apiKeysList, apiKeysCreate, apiKeysRevoke, apiKeysRoll, apiKeysGetRequests] as const;
