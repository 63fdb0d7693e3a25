import { z } from 'zod';
import { TASK_STATUSES } from '../../domain/task-status';
import { dateTimeField, idField } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';

export const tasksGetAllInput = z
  .strictObject({
    status: z.enum(TASK_STATUSES).optional(),
    /** A member id, or `unassigned` for tasks without an assignee (as in the leads list). */
    assignedToId: idField.optional(),
    leadId: idField.optional(),
    clientId: idField.optional(),
    /** Tasks due strictly before this time. */
    dueBefore: dateTimeField.optional(),
    /** Tasks due at or after this time. */
    dueAfter: dateTimeField.optional(),
    ...pageFields,
  })
  .prefault({});

export type TasksGetAllInput = z.output<typeof tasksGetAllInput>;
