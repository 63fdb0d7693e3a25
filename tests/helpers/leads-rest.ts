import request from 'supertest';
import type { Express } from 'express';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { Lead } from '../../src/db/leads';

/** The 16 fields of the spec's Lead object and `externalId` (docs/decisions.md, "External ids"), sorted. */
export const LEAD_FIELDS = [
  'assignedToId', 'clientId', 'company', 'contactId', 'createdAt', 'emails', 'externalId', 'id', 'name', 'nextCallAt', 'notes',
  'phones', 'primaryEmail', 'primaryPhone', 'source', 'status', 'updatedAt',
];

/** A Lead as the REST list sends it: plain JSON, dates as ISO strings. */
export type JsonLead = Omit<Lead, 'nextCallAt' | 'createdAt' | 'updatedAt'> & {
  nextCallAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export interface ListBody {
  data: JsonLead[];
  pagination: { page: number | null; pageSize: number; total: number; totalPages: number; hasNextPage: boolean; hasPrevPage: boolean; nextCursor: string | null };
}

/**
 * GET /api/v1/leads. `query` is an object (each value sent once) or a raw query string, for
 * cases an object cannot express (a repeated parameter, an empty value).
 */
export function listLeads(app: Express, key: string | null, query: Record<string, string | number> | string = {}) {
  const req = request(app).get('/api/v1/leads').query(query);
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

/** The body of a successful list call. */
export function bodyOf(res: { body: unknown }): ListBody {
  return res.body as ListBody;
}

export function idsOf(res: { body: unknown }): string[] {
  return bodyOf(res).data.map((l) => l.id);
}

/** What the list must send for a stored lead. */
export function toJsonLead(lead: Lead): JsonLead {
  return {
    ...lead,
    nextCallAt: lead.nextCallAt ? lead.nextCallAt.toISOString() : null,
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
  };
}

/** Sets a lead's stored created_at, to build ties and known orders (its stored JSON rendered again to match). */
export async function setCreatedAt(db: Db, orgId: string, leadId: string, createdAt: Date): Promise<void> {
  await db.transaction(async (trx) => {
    const updated = await trx('leads').where({ org_id: orgId, id: leadId }).update({ created_at: createdAt });
    if (updated !== 1) throw new Error(`lead ${leadId} not found in ${orgId}`);
    await leads.storeLeadJson(trx, orgId, { leadIds: [leadId] });
  });
}

type Headers = Record<string, string>;

function withKey(req: request.Test, key: string | null, headers: Headers): request.Test {
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

/** POST /api/v1/leads with a JSON body (a string is sent as it is). */
export function createLeadRest(app: Express, key: string | null, body: unknown, headers: Headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return withKey(request(app).post('/api/v1/leads').set('Content-Type', 'application/json'), key, headers).send(text);
}

/** GET /api/v1/leads/{id}. */
export function getLeadRest(app: Express, key: string | null, id: string, headers: Headers = {}) {
  return withKey(request(app).get(`/api/v1/leads/${encodeURIComponent(id)}`), key, headers);
}

/** PATCH /api/v1/leads/{id} with a JSON body (a string is sent as it is). */
export function patchLeadRest(app: Express, key: string | null, id: string, body: unknown, headers: Headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return withKey(request(app).patch(`/api/v1/leads/${encodeURIComponent(id)}`).set('Content-Type', 'application/json'), key, headers).send(text);
}

/** DELETE /api/v1/leads/{id}. */
export function deleteLeadRest(app: Express, key: string | null, id: string, headers: Headers = {}) {
  return withKey(request(app).delete(`/api/v1/leads/${encodeURIComponent(id)}`), key, headers);
}

/** PUT /api/v1/leads/external/{externalId} with a JSON body; `rawPath` sends the segment as it is (not encoded here). */
export function putLeadByExternalIdRest(app: Express, key: string | null, externalId: string, body: unknown, headers: Headers = {}, rawPath = false) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const segment = rawPath ? externalId : encodeURIComponent(externalId);
  return withKey(request(app).put(`/api/v1/leads/external/${segment}`).set('Content-Type', 'application/json'), key, headers).send(text);
}
