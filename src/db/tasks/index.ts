import type { Knex } from 'knex';
import type { Db } from '../knex';
import { moveToTrash, type DeletedBy } from '../trash';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';
import type { TaskStatus } from '../../domain/task-status';

/** A task, as the API returns it. */
export interface Task {
  id: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  dueAt: Date | null;
  completedAt: Date | null;
  leadId: string | null;
  clientId: string | null;
  assignedToId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TaskFields {
  title: string;
  description: string | null;
  status: TaskStatus;
  dueAt: Date | null;
  completedAt: Date | null;
  leadId: string | null;
  clientId: string | null;
  assignedToId: string | null;
}

export interface TaskListFilters {
  status?: TaskStatus;
  /** A member id, or 'unassigned' for tasks without one (as the leads list). */
  assignedToId?: string;
  leadId?: string;
  clientId?: string;
  /** Half-open range on due_at: dueAfter <= due_at < dueBefore; tasks without a due date never match. */
  dueAfter?: Date;
  dueBefore?: Date;
}

export const TASK_COLUMNS = [
  'id', 'title', 'description', 'status', 'due_at', 'completed_at', 'lead_id', 'client_id', 'assigned_to_id',
  'created_at', 'updated_at',
];

export interface TaskRow {
  id: string;
  title: string;
  description: string | null;
  status: TaskStatus;
  due_at: Date | null;
  completed_at: Date | null;
  lead_id: string | null;
  client_id: string | null;
  assigned_to_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    dueAt: row.due_at,
    completedAt: row.completed_at,
    leadId: row.lead_id,
    clientId: row.client_id,
    assignedToId: row.assigned_to_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toColumns(fields: Partial<TaskFields>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.title !== undefined) columns.title = fields.title;
  if (fields.description !== undefined) columns.description = fields.description;
  if (fields.status !== undefined) columns.status = fields.status;
  if (fields.dueAt !== undefined) columns.due_at = fields.dueAt;
  if (fields.completedAt !== undefined) columns.completed_at = fields.completedAt;
  if (fields.leadId !== undefined) columns.lead_id = fields.leadId;
  if (fields.clientId !== undefined) columns.client_id = fields.clientId;
  if (fields.assignedToId !== undefined) columns.assigned_to_id = fields.assignedToId;
  return columns;
}

function filtered(db: Db, orgId: string, filters: TaskListFilters) {
  const query = db(TABLES.tasks).where('org_id', orgId);
  if (filters.status) query.where('status', filters.status);
  if (filters.assignedToId === 'unassigned') query.whereNull('assigned_to_id');
  else if (filters.assignedToId) query.where('assigned_to_id', filters.assignedToId);
  if (filters.leadId) query.where('lead_id', filters.leadId);
  if (filters.clientId) query.where('client_id', filters.clientId);
  if (filters.dueAfter) query.where('due_at', '>=', filters.dueAfter);
  if (filters.dueBefore) query.where('due_at', '<', filters.dueBefore);
  return query;
}

/** One page of tasks, soonest due first (undated last), then newest, then id; and the exact total. */
export async function list(db: Db, orgId: string, filters: TaskListFilters, page: PageRequest): Promise<{ tasks: Task[]; total: number }> {
  const { items, total } = await paginate<TaskRow, Task>({
    filtered: () => filtered(db, orgId, filters),
    select: TASK_COLUMNS,
    orderBy: 'due_at asc nulls last, created_at desc, id desc',
    page,
    toItem: toTask,
  });
  return { tasks: items, total };
}

export async function getById(db: Db, orgId: string, taskId: string): Promise<Task | undefined> {
  const row = await db(TABLES.tasks).select(TASK_COLUMNS).where({ org_id: orgId, id: taskId }).first();
  return row ? toTask(row as TaskRow) : undefined;
}

/** Locks the task row for the rest of the transaction; answers what an update must check. */
export async function lockForUpdate(
  db: Db,
  orgId: string,
  taskId: string,
): Promise<{ status: TaskStatus; completedAt: Date | null; updatedAt: Date } | undefined> {
  const row = await db(TABLES.tasks)
    .select('status', 'completed_at', 'updated_at')
    .where({ org_id: orgId, id: taskId })
    .forUpdate()
    .first();
  return row ? { status: row.status, completedAt: row.completed_at, updatedAt: row.updated_at } : undefined;
}

export async function insert(db: Db, orgId: string, fields: TaskFields): Promise<Task> {
  const [row] = await db(TABLES.tasks)
    .insert({ org_id: orgId, id: newId('task'), ...toColumns(fields) })
    .returning(TASK_COLUMNS);
  return toTask(row as TaskRow);
}

export async function update(db: Db, orgId: string, taskId: string, patch: Partial<TaskFields>): Promise<Task | undefined> {
  const [row] = await db(TABLES.tasks)
    .where({ org_id: orgId, id: taskId })
    .update({ ...toColumns(patch), updated_at: db.raw(NEXT_UPDATED_AT) })
    .returning(TASK_COLUMNS);
  return row ? toTask(row as TaskRow) : undefined;
}

/** Answers false when there was no such task in the workspace. */
/** A deleted client's tasks keep their fields and lose the link; answers their ids (for the client's trash row). */
export async function clearClient(db: Db, orgId: string, clientId: string): Promise<string[]> {
  const rows: { id: string }[] = await db(TABLES.tasks).where({ org_id: orgId, client_id: clientId }).update({ client_id: null }).returning(['id']);
  return rows.map((r) => r.id).sort();
}

/** A deleted lead's tasks keep their fields and lose the link; answers their ids (for the lead's trash row). */
export async function clearLead(db: Db, orgId: string, leadId: string): Promise<string[]> {
  const rows: { id: string }[] = await db(TABLES.tasks).where({ org_id: orgId, lead_id: leadId }).update({ lead_id: null }).returning(['id']);
  return rows.map((r) => r.id).sort();
}

/** Moves the task into the trash (src/db/trash), in one statement; false when there was no such task. */
export async function remove(trx: Knex.Transaction, orgId: string, taskId: string, deletedBy: DeletedBy): Promise<boolean> {
  const row = await moveToTrash<{ id: string }>(trx, orgId, {
    resource: 'task', table: TABLES.tasks, id: taskId, deletedBy, contactOf: 'null', answer: 't.id',
  });
  return row !== undefined;
}
