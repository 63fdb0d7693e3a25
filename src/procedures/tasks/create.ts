import { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as tasksQueries from '../../db/queries/tasks.queries';
import { dateTimeField, idField, requiredText, text } from '../shared/fields';
import { assertTaskReferences } from './references';

export const tasksCreateInput = z.strictObject({
  title: requiredText(500),
  description: text(10_000).nullable().optional(),
  dueAt: dateTimeField.nullable().optional(),
  leadId: idField.nullable().optional(),
  clientId: idField.nullable().optional(),
  assignedToId: idField.nullable().optional(),
});

export const tasksCreate = defineProcedure({
  name: 'tasks.create',
  method: 'POST',
  scope: 'tasks.create',
  exposed: true,
  description: 'Creates an OPEN task, optionally due at a time and linked to a lead, a client and an assignee.',
  input: tasksCreateInput,
  async handler({ ctx, input }) {
    return ctx.db.transaction(async (trx) => {
      await assertTaskReferences(trx, ctx.orgId, input);
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
