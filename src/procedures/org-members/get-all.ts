import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import * as membersQueries from '../../db/members';
import { toPage } from '../../db/pagination';
import { objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';
import { pageOutput } from '../shared/output-fields';
import { memberOutput } from './member.schema';

export const orgMembersGetAllOutput = pageOutput(memberOutput).meta({ description: "A page of the workspace's members, by name." });

export const orgMembersGetAll = defineProcedure({
  name: 'orgMembers.getAll',
  method: 'GET',
  scope: 'orgMembers.read',
  exposed: true,
  description: "A page of the workspace's members, by name.",
  input: objectOf({ ...pageFields }).prefault({}),
  output: orgMembersGetAllOutput,
  async handler({ ctx, input }): Promise<z.input<typeof orgMembersGetAllOutput>> {
    const { members, total } = await membersQueries.list(ctx.db, ctx.orgId, input);
    return toPage(members, total, input);
  },
});
