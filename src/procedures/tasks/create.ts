import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as tasksQueries from '../../db/tasks';
import { objectOf, requiredText, text } from '../shared/fields';
import { dateTimeField } from '../shared/format-fields';
import { taskReferences } from './references';
import { taskOutput, type TaskOutput } from './task.schema';

export const tasksCreateInput = objectOf({
  title: requiredText(500, { example: 'Call Ana Souza about the renewal' }),
  description: text(10_000, { example: 'She asked for the annual plan pricing before the call' }).nullable().optional(),
  dueAt: dateTimeField.nullable().optional(),
  leadId: taskReferences.leadId.nullable().optional(),
  clientId: taskReferences.clientId.nullable().optional(),
  assignedToId: taskReferences.assignedToId.nullable().optional(),
});

export const tasksCreate = defineProcedure({
  name: 'tasks.create',
  method: 'POST',
  scope: 'tasks.create',
  exposed: true,
  description: 'Creates an OPEN task, optionally due at a time and linked to a lead, a client and an assignee.',
  input: tasksCreateInput,
  output: taskOutput,
  async handler({ ctx, input }): Promise<TaskOutput> {
    return ctx.db.transaction(async (trx) => {
      const task = await tasksQueries.insert(trx, ctx.orgId, {
        title: input.title,
        description: input.description ?? null,
        status: 'OPEN',
        dueAt: input.dueAt ?? null,
        completedAt: null,
        leadId: input.leadId ?? null,
        clientId: input.clientId ?? null,
        assignedToId: input.assignedToId ?? null,
      });
      await recordEvents(trx, ctx, [{ type: 'task.created', object: task }]);
      return task;
    });
  },
});
