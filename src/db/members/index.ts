import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';
import { normaliseEmail } from '../../domain/email';
import type { OrgTier } from '../orgs';
import { announceCacheChange } from '../cache-changes';
import { acrossWorkspaces } from '../across-workspaces';

export interface OrgMember {
  id: string;
  name: string;
  email: string;
  permissions: string[];
  createdAt: Date;
}

const COLUMNS = ['id', 'name', 'email', 'permissions', 'created_at'];

interface MemberRow {
  id: string;
  name: string;
  email: string;
  permissions: string[];
  created_at: Date;
}

function toMember(row: MemberRow): OrgMember {
  return { id: row.id, name: row.name, email: row.email, permissions: row.permissions, createdAt: row.created_at };
}

export async function create(
  db: Db,
  orgId: string,
  input: { name: string; email: string; permissions?: string[] },
): Promise<OrgMember> {
  const [row] = await db(TABLES.orgMembers)
    .insert({
      org_id: orgId,
      id: newId('mem'),
      name: input.name,
      email: normaliseEmail(input.email),
      permissions: input.permissions ?? [],
    })
    .returning(COLUMNS);
  return toMember(row as MemberRow);
}

/** One page of the workspace's members by name (then id, so pages are stable), and the exact total. */
export async function list(db: Db, orgId: string, page: PageRequest): Promise<{ members: OrgMember[]; total: number }> {
  const { items, total } = await paginate<MemberRow, OrgMember>({
    filtered: () => db(TABLES.orgMembers).where('org_id', orgId),
    select: COLUMNS,
    orderBy: 'name asc, id asc',
    page,
    toItem: toMember,
  });
  return { members: items, total };
}

export async function getById(db: Db, orgId: string, memberId: string): Promise<OrgMember | undefined> {
  const row = await db(TABLES.orgMembers).select(COLUMNS).where({ org_id: orgId, id: memberId }).first();
  return row ? toMember(row as MemberRow) : undefined;
}

export async function exists(db: Db, orgId: string, memberId: string): Promise<boolean> {
  const row = await db(TABLES.orgMembers).select('id').where({ org_id: orgId, id: memberId }).first();
  return row !== undefined;
}

/** What a member session or a test token must re-check on every use: the member's permissions and its workspace. */
export interface MemberAccess {
  permissions: string[];
  org: { tier: OrgTier; features: string[]; phoneRegion: string };
}

/** One query for the member and its workspace; undefined when the member is gone. */
export async function getAccess(db: Db, orgId: string, memberId: string): Promise<MemberAccess | undefined> {
  const row = await db(`${TABLES.orgMembers} as m`)
    .join(`${TABLES.organisations} as o`, 'o.id', 'm.org_id')
    .select('m.permissions', 'o.tier', 'o.features', 'o.phone_region')
    .where({ 'm.org_id': orgId, 'm.id': memberId, 'o.id': orgId })
    .first();
  if (!row) return undefined;
  return { permissions: row.permissions, org: { tier: row.tier, features: row.features, phoneRegion: row.phone_region } };
}

/** Operators change what a member may do; every instance's caches forget the member at commit. */
export function setPermissions(db: Db, orgId: string, memberId: string, permissions: string[]): Promise<OrgMember | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx(TABLES.orgMembers).where({ org_id: orgId, id: memberId }).update({ permissions }).returning(COLUMNS);
    if (!row) return undefined;
    await announceCacheChange(trx, { kind: 'member', orgId, memberId });
    return toMember(row as MemberRow);
  });
}

/** The workspace of a member known only by id (member ids are random, so at most one matches): an operator's look-up, across workspaces. */
export async function findOrgIdOf(db: Db, memberId: string): Promise<string | undefined> {
  const rows: { org_id: string }[] = await acrossWorkspaces(db, (trx) => trx(TABLES.orgMembers).select('org_id').where({ id: memberId }).limit(2));
  return rows.length === 1 ? rows[0]!.org_id : undefined;
}

/** Every member of the workspace by name (then id), unpaged: the operators' CLI shows them all. */
export async function listAll(db: Db, orgId: string): Promise<OrgMember[]> {
  const rows: MemberRow[] = await db(TABLES.orgMembers).select(COLUMNS).where({ org_id: orgId }).orderBy([{ column: 'name' }, { column: 'id' }]);
  return rows.map(toMember);
}
