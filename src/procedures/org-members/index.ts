import { orgMembersGetAll } from './get-all';
import { orgMembersGetById } from './get-by-id';

/** Read only: members are managed in the app. */
export const orgMembersProcedures = [orgMembersGetAll, orgMembersGetById] as const;
