import { apiKeysList } from './list';
import { apiKeysCreate } from './create';
import { apiKeysRevoke } from './revoke';

/** App-only (exposed: false): through the API these answer 403 whatever the key's scopes. */
export const apiKeysProcedures = [apiKeysList, apiKeysCreate, apiKeysRevoke] as const;
