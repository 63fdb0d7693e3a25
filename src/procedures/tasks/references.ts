import type { Db } from '../../db/knex';
import { assertInWorkspace } from '../shared/references';

/** The ids a task may point at; null or absent means nothing to check. */
export interface TaskReferences {
  leadId?: string | null;
  clientId?: string | null;
  assignedToId?: string | null;
}

/** Every id a task input references must be in the caller's workspace, else 404 naming the field. */
export async function assertTaskReferences(db: Db, orgId: string, refs: TaskReferences): Promise<void> {
  if (refs.leadId) await assertInWorkspace(db, 'leads', orgId, refs.leadId, 'leadId');
  if (refs.clientId) await assertInWorkspace(db, 'clients', orgId, refs.clientId, 'clientId');
  if (refs.assignedToId) await assertInWorkspace(db, 'orgMembers', orgId, refs.assignedToId, 'assignedToId');
}
