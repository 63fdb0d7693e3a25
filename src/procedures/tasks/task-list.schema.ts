import type { z } from 'zod';
import { TASK_STATUSES } from '../../domain/task-status';
import { enumOf, idOf, objectOf } from '../shared/fields';
import { dateTimeField } from '../shared/format-fields';
import { pageFields } from '../shared/pagination.schema';

export const tasksGetAllInput = objectOf({
  status: enumOf(TASK_STATUSES).optional(),
  /** A member id, or `unassigned` for tasks without an assignee (as in the leads list). */
  assignedToId: idOf('mem', { orUnassigned: true }).optional(),
  // Ids of another workspace simply match nothing: filters are not references.
  leadId: idOf('lead').optional(),
  clientId: idOf('cli').optional(),
  /** Tasks due strictly before this time. */
  dueBefore: dateTimeField.optional(),
  /** Tasks due at or after this time. */
  dueAfter: dateTimeField.optional(),
  ...pageFields,
}).prefault({});
