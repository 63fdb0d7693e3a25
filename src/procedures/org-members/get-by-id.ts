import { defineProcedure } from '../../rpc/define-procedure';
import * as membersQueries from '../../db/members';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { memberOutput, type MemberOutput } from './member.schema';

export const orgMembersGetById = defineProcedure({
  name: 'orgMembers.getById',
  method: 'GET',
  scope: 'orgMembers.read',
  exposed: true,
  description: 'One member of the workspace by id.',
  input: objectOf({ id: idOf('mem') }),
  output: memberOutput,
  async handler({ ctx, input }): Promise<MemberOutput> {
    const member = await membersQueries.getById(ctx.db, ctx.orgId, input.id);
    if (!member) throw notInWorkspace('orgMembers', input.id);
    return member;
  },
});
