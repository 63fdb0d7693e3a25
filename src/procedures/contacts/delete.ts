import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import { contactHistory } from '../../events/history';
import * as contacts from '../../db/contacts';
import { AppError } from '../../errors/app-error';
import { idOf, objectOf } from '../shared/fields';
import { notInWorkspace } from '../shared/references';
import { contactDeletedOutput } from './contact.schema';

export const contactsDelete = defineProcedure({
  name: 'contacts.delete',
  method: 'POST',
  scope: 'contacts.delete',
  exposed: true,
  description: 'Deletes a contact no lead uses (409 otherwise); clients linked to it keep their fields and lose the link.',
  input: objectOf({ id: idOf('con') }),
  output: contactDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof contactDeletedOutput>> {
    return ctx.db.transaction(async (trx) => {
      // The lock makes the check and the delete one step against a racing reference to the contact.
      if (!(await contacts.lockForUpdate(trx, ctx.orgId, input.id))) throw notInWorkspace('contacts', input.id);
      if (await contacts.isUsedByLead(trx, ctx.orgId, input.id)) {
        throw new AppError('CONFLICT', `Contact ${JSON.stringify(input.id)} is used by a lead: delete the lead first`);
      }
      const contact = (await contacts.getById(trx, ctx.orgId, input.id))!;
      await contacts.remove(trx, ctx.orgId, input.id, ctx.actor);
      await recordEvents(trx, ctx, [{ type: 'contact.deleted', object: contact, history: contactHistory(contact, null) }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
