import { leadsGetAll } from './get-all';
import { leadsGetById } from './get-by-id';
import { leadsCreate } from './create';
import { leadsUpdate } from './update';
import { leadsUpsert } from './upsert';
import { leadsDelete } from './delete';
import { leadsAssign } from './assign';
import { leadsLogCall } from './log-call';
import { leadsConvert } from './convert';
import { leadsGetCalls } from './get-calls';
import { leadsGetHistory } from './get-history';
import { leadsRestore } from './restore';
import { leadsGetDeleted } from './get-deleted';

export const leadsProcedures = [
  leadsGetAll,
  leadsGetById,
  leadsCreate,
  leadsUpdate,
  leadsUpsert,
  leadsDelete,
  leadsAssign,
  leadsLogCall,
  leadsConvert,
  leadsGetCalls,
  leadsGetHistory,
  leadsRestore,
  leadsGetDeleted,
] as const;
