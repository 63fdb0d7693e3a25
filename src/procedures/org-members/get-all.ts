import { defineProcedure } from '../../rpc/define-procedure';
import * as membersQueries from '../../db/members';
import { toPage } from '../../db/pagination';
import { objectOf } from '../shared/fields';
import { pageFields } from '../shared/pagination.schema';

export const orgMembersGetAll = defineProcedure({
  name: 'orgMembers.getAll',
  method: 'GET',
  scope: 'orgMembers.read',
  exposed: true,
  description: "A page of the workspace's members, by name.",
  input: objectOf({ ...pageFields }).prefault({}),
  async handler({ ctx, input }) {
    const { members, total } = await membersQueries.list(ctx.db, ctx.orgId, input);
    return toPage(members, total, input);
  },
});
