import { createServer } from 'node:http';
import pg from 'pg';

// The floor for leads.getById: the same lookup (a lead by workspace and id, joined to its contact)
// with nothing between Node and the driver: bare node:http, a pg pool and a named prepared
// statement, no framework, no query builder, no auth. It answers leads.getById's envelope, byte
// for byte the text the service sends for the same lead, so the two differ only in the work done.
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DB_POOL_MAX ?? 10) });
process.once('SIGTERM', () => process.exit(0));

const GET_LEAD = {
  name: 'floor_lead_by_id',
  text: `select l.id, l.contact_id, l.status, l.source, l.notes, l.next_call_at, l.assigned_to_id, l.client_id,
    l.created_at, l.updated_at, c.name, c.phones, c.emails, c.company
    from leads l join contacts c on c.org_id = l.org_id and c.id = l.contact_id
    where l.org_id = $1 and l.id = $2 limit 1`,
};

interface Row {
  id: string; contact_id: string; status: string; source: string | null; notes: string | null; next_call_at: Date | null;
  assigned_to_id: string | null; client_id: string | null; created_at: Date; updated_at: Date;
  name: string; phones: string[]; emails: string[]; company: string | null;
}

/** The Lead object in the spec's field order, and superjson's meta naming its Dates. */
function envelopeOf(r: Row): string {
  const lead = {
    id: r.id, name: r.name, phones: r.phones, emails: r.emails, primaryPhone: r.phones[0] ?? null, primaryEmail: r.emails[0] ?? null,
    company: r.company, contactId: r.contact_id, source: r.source, status: r.status, notes: r.notes, nextCallAt: r.next_call_at,
    createdAt: r.created_at, updatedAt: r.updated_at, assignedToId: r.assigned_to_id, clientId: r.client_id,
  };
  const values: Record<string, ['Date']> = r.next_call_at ? { nextCallAt: ['Date'] } : {};
  values.createdAt = ['Date'];
  values.updatedAt = ['Date'];
  return JSON.stringify({ result: { data: { json: lead, meta: { values, v: 1 } } } });
}

function send(res: import('node:http').ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

// GET /leads/<orgId>/<leadId>, as the ceiling's route.
createServer((req, res) => {
  const [, first, orgId, leadId] = (req.url ?? '').split('/');
  if (first !== 'leads' || !orgId || !leadId) return send(res, 404, '{"error":"not found"}');
  pool.query<Row>({ ...GET_LEAD, values: [orgId, leadId] }).then(
    ({ rows }) => (rows[0] ? send(res, 200, envelopeOf(rows[0])) : send(res, 404, '{"error":"not found"}')),
    () => send(res, 500, '{"error":"internal"}'),
  );
}).listen(Number(process.env.PORT ?? 0), '127.0.0.1');
