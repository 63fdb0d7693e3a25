import { z } from 'zod';
import { TASK_STATUSES } from '../../domain/task-status';
import { deletedOutput, idOutput, textOutput, timestampOutput } from '../shared/output-fields';

/**
 * A task as every tasks procedure answers it (src/db/tasks `toTask`). The examples describe one
 * task, done twenty minutes after it was due: `completedAt` is set exactly while DONE.
 */
export const taskOutput = z
  .strictObject({
    id: idOutput('task'),
    title: textOutput('Call Ana Souza about the renewal'),
    description: textOutput('She asked for the annual plan pricing before the call').nullable(),
    status: z.enum(TASK_STATUSES).meta({ examples: ['DONE'] }),
    dueAt: timestampOutput('2026-12-03T10:00:00.000Z').nullable(),
    completedAt: timestampOutput('2026-12-03T10:20:00.000Z').nullable().meta({ description: 'When it was completed; null while OPEN.' }),
    leadId: idOutput('lead').nullable(),
    clientId: idOutput('cli').nullable(),
    assignedToId: idOutput('mem').nullable().meta({ description: 'The member the task is assigned to, or null.' }),
    createdAt: timestampOutput('2026-11-26T09:30:00.000Z'),
    updatedAt: timestampOutput('2026-12-03T10:20:00.000Z'),
  })
  .meta({ description: 'A task: something to do, optionally due at a time, about a lead or a client.' });

export type TaskOutput = z.input<typeof taskOutput>;

/** What `tasks.delete` answers. */
export const taskDeletedOutput = deletedOutput('task', 'task');
