import { referenceTo } from '../shared/references';

/** The records a task may point at, each checked to be in the caller's workspace (404 naming the field). */
export const taskReferences = {
  leadId: referenceTo('leads'),
  clientId: referenceTo('clients'),
  assignedToId: referenceTo('orgMembers'),
};
