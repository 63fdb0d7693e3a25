import { organisationUpdate } from './update';

/** App-only (exposed: false): through the API these answer 403 whatever the key's scopes. */
export const organisationProcedures = [organisationUpdate] as const;
