import type { Db } from '../knex';
import { TABLES } from '../tables';
import * as contacts from '../contacts';
import { LEAD_COLUMNS, toLead, type Lead, type LeadRow } from '../leads/shape';
import { CALL_COLUMNS, toLeadCall, type LeadCall } from '../leads/calls';
import { TASK_COLUMNS, toTask, type Task } from '../tasks';
import { CLIENT_COLUMNS, toClient, type Client, type ClientRow } from '../clients';
import { listNamingContact } from '../events/personal-data';
import type { WorkspaceEvent } from '../events';
import * as history from '../history';
import { trashedLeadIdsOf } from '../trash';

/** Everything the workspace holds about one person (contacts.exportPersonalData). */
export interface PersonalData {
  contact: contacts.Contact;
  leads: Lead[];
  calls: LeadCall[];
  tasks: Task[];
  clients: Client[];
  events: WorkspaceEvent[];
  history: Awaited<ReturnType<typeof history.listOfPerson>>;
}

/**
 * Reads the person's rows, each by an index on the workspace and the contact or its leads
 * (events: events_org_person_idx; the history: its leads' in the trash too); undefined when there is no such contact. The caller runs it
 * in one snapshot so the parts agree.
 */
export async function readPersonalData(db: Db, orgId: string, contactId: string): Promise<PersonalData | undefined> {
  const contact = await contacts.getById(db, orgId, contactId);
  if (!contact) return undefined;
  const leadRows: LeadRow[] = await db(`${TABLES.leads} as l`)
    .join(`${TABLES.contacts} as c`, (on) => on.on('c.org_id', 'l.org_id').andOn('c.id', 'l.contact_id'))
    .select(LEAD_COLUMNS)
    .where({ 'l.org_id': orgId, 'l.contact_id': contactId })
    .orderBy([{ column: 'l.created_at' }, { column: 'l.id' }]);
  const leadIds = leadRows.map((l) => l.id);
  const calls = await db(TABLES.leadCalls).select(CALL_COLUMNS).where('org_id', orgId).whereIn('lead_id', leadIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  const tasks = await db(TABLES.tasks).select(TASK_COLUMNS).where('org_id', orgId).whereIn('lead_id', leadIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  const clients: ClientRow[] = await db(TABLES.clients).select(CLIENT_COLUMNS).where({ org_id: orgId, contact_id: contactId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return {
    contact,
    leads: leadRows.map(toLead),
    calls: calls.map(toLeadCall),
    tasks: tasks.map(toTask),
    clients: clients.map(toClient),
    events: await listNamingContact(db, orgId, contactId),
    // The history of the person's leads in the trash too: kept while they are, as the erasure knows.
    history: await history.listOfPerson(db, orgId, {
      contactId, leadIds: [...leadIds, ...await trashedLeadIdsOf(db, orgId, contactId)],
    }),
  };
}
