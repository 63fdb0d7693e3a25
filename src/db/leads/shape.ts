import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { LeadStatus } from '../../domain/lead-status';

/** The Lead object of the spec: these 17 fields (the spec's 16 and `externalId`), always present. */
export interface Lead {
  id: string;
  name: string;
  phones: string[];
  emails: string[];
  primaryPhone: string | null;
  primaryEmail: string | null;
  contactId: string;
  company: string | null;
  source: string | null;
  status: LeadStatus;
  notes: string | null;
  nextCallAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  assignedToId: string | null;
  clientId: string | null;
  /** The caller's own id for the lead (a sync's key), unique in the workspace; null when unset. */
  externalId: string | null;
}

/** Lead columns as stored; the person fields are the contact's. */
export interface LeadFields {
  status: LeadStatus;
  source: string | null;
  notes: string | null;
  nextCallAt: Date | null;
  assignedToId: string | null;
  clientId: string | null;
  /** Absent on a create: none. */
  externalId?: string | null;
}

/** What a lead answers with: its own columns (`l`) and its contact's person fields (`c`). */
export const LEAD_COLUMNS = [
  'l.id', 'l.contact_id', 'l.status', 'l.source', 'l.notes', 'l.next_call_at', 'l.assigned_to_id', 'l.client_id',
  'l.created_at', 'l.updated_at', 'l.external_id', 'c.name', 'c.phones', 'c.emails', 'c.company',
];

export interface LeadRow {
  id: string;
  contact_id: string;
  status: LeadStatus;
  source: string | null;
  notes: string | null;
  next_call_at: Date | null;
  assigned_to_id: string | null;
  client_id: string | null;
  created_at: Date;
  updated_at: Date;
  external_id: string | null;
  name: string;
  phones: string[];
  emails: string[];
  company: string | null;
}

/** A row of LEAD_COLUMNS as the API answers it: the primary phone and email are the contact's first, or null. */
export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    name: row.name,
    phones: row.phones,
    emails: row.emails,
    primaryPhone: row.phones[0] ?? null,
    primaryEmail: row.emails[0] ?? null,
    company: row.company,
    contactId: row.contact_id,
    source: row.source,
    status: row.status,
    notes: row.notes,
    nextCallAt: row.next_call_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    assignedToId: row.assigned_to_id,
    clientId: row.client_id,
    externalId: row.external_id,
  };
}

/** The workspace's leads (`l`) alone: every list filter, a search included, reads only the lead's row. */
export function leadsOf(db: Db, orgId: string) {
  return db({ l: TABLES.leads }).where('l.org_id', orgId);
}

/** The workspace's leads joined to their contacts (`c`), both named with the workspace. */
export function leadsWithContacts(db: Db, orgId: string) {
  return leadsOf(db, orgId).join({ c: TABLES.contacts }, function joinContact() {
    this.on('c.id', '=', 'l.contact_id').andOnVal('c.org_id', '=', orgId);
  });
}

