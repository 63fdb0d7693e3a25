import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as tasksQueries from '../../db/tasks';
import { toPage } from '../../db/pagination';
import { tasksGetAllInput } from './task-list.schema';
import { pageOutput } from '../shared/output-fields';
import { taskOutput } from './task.schema';

export const tasksGetAllOutput = pageOutput(taskOutput);

export const tasksGetAll = defineProcedure({
  name: 'tasks.getAll',
  method: 'GET',
  scope: 'tasks.read',
  exposed: true,
  description: 'A page of tasks, soonest due first (undated last), filtered by status, assignee, lead, client or due date.',
  input: tasksGetAllInput,
  output: tasksGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof tasksGetAllOutput>> {
    const { page, pageSize, ...filters } = input;
    // An id of another workspace simply matches nothing here: the query is scoped by org_id.
    const { tasks, total } = await tasksQueries.list(ctx.db, ctx.orgId, filters, { page, pageSize });
    return toPage(tasks, total, { page, pageSize });
  },
});
