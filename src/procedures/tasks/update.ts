import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as tasksQueries from '../../db/tasks';
import { TASK_STATUSES, setTaskStatus } from '../../domain/task-status';
import { enumOf, idOf, objectOf, requiredText, text } from '../shared/fields';
import { dateTimeField } from '../shared/format-fields';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { notInWorkspace } from '../shared/references';
import { taskReferences } from './references';
import { taskOutput, type TaskOutput } from './task.schema';

/** Absent means unchanged; null clears a nullable field. */
export const tasksUpdateInput = objectOf({
  id: idOf('task'),
  title: requiredText(500, { example: 'Call Ana Souza about the renewal' }).optional(),
  description: text(10_000, { example: 'She asked for the annual plan pricing before the call' }).nullable().optional(),
  dueAt: dateTimeField.nullable().optional(),
  leadId: taskReferences.leadId.nullable().optional(),
  clientId: taskReferences.clientId.nullable().optional(),
  assignedToId: taskReferences.assignedToId.nullable().optional(),
  status: enumOf(TASK_STATUSES).optional(),
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const tasksUpdate = defineProcedure({
  name: 'tasks.update',
  method: 'POST',
  scope: 'tasks.update',
  exposed: true,
  description: 'Changes the given fields of a task; status DONE stamps completedAt, OPEN reopens it and clears it.',
  input: tasksUpdateInput,
  output: taskOutput,
  async handler({ ctx, input }): Promise<TaskOutput> {
    return ctx.db.transaction(async (trx) => {
      const current = await tasksQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw notInWorkspace('tasks', input.id);
      assertUnchangedSince('task', current.updatedAt, input.expectedUpdatedAt);
      const state = input.status ? setTaskStatus(current, input.status, new Date()) : current;
      const task = (await tasksQueries.update(trx, ctx.orgId, input.id, {
        title: input.title,
        description: input.description,
        dueAt: input.dueAt,
        leadId: input.leadId,
        clientId: input.clientId,
        assignedToId: input.assignedToId,
        status: state.status,
        completedAt: state.completedAt,
      }))!;
      const completed = current.status !== 'DONE' && task.status === 'DONE';
      await recordEvents(trx, ctx, [{ type: 'task.updated', object: task }, ...(completed ? [{ type: 'task.completed' as const, object: task }] : [])]);
      return task;
    });
  },
});
