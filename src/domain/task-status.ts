import { AppError } from '../errors/app-error';

export const TASK_STATUSES = ['OPEN', 'DONE'] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The part of a task its status rules read and write: `completedAt` is set exactly while DONE. */
export interface TaskState {
  status: TaskStatus;
  completedAt: Date | null;
}

/**
 * The task transition rules, in one place (docs/errors-and-limits.md, "Task status transitions"):
 * - `tasks.update` may set either status: DONE stamps `completedAt` (kept if already DONE),
 *   OPEN reopens the task and clears it;
 * - `tasks.complete` moves OPEN to DONE only; completing a DONE task is refused, so a retried
 *   or duplicated call cannot silently move the original completion time.
 */
export function setTaskStatus(current: TaskState, to: TaskStatus, now: Date): TaskState {
  if (to === current.status) return current;
  return to === 'DONE' ? { status: 'DONE', completedAt: now } : { status: 'OPEN', completedAt: null };
}

export function completeTask(current: TaskState, now: Date): TaskState {
  if (current.status === 'DONE') {
    const when = current.completedAt ? ` (completed at ${current.completedAt.toISOString()})` : '';
    throw new AppError(
      'CONFLICT',
      `Cannot complete a task that is already DONE${when}: only an OPEN task moves to DONE; set its status to OPEN to reopen it`,
    );
  }
  return { status: 'DONE', completedAt: now };
}
