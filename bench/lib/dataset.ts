import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import * as orgsQueries from '../../src/db/orgs';
import { issueApiKey } from '../../src/auth/api-keys';
import { KNOWN_SCOPES } from '../../src/auth/scopes';
import { seedBulk, type SeedBulkResult } from '../../src/cli/seed-bulk';
import { progressBar } from '../../src/cli/seed-progress';

export const DEFAULT_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/wsapi_bench';

/** Creates the benchmark database when it is missing (an existing one keeps its data), then migrates it. */
export async function openBenchDatabase(url: string): Promise<Db> {
  const parsed = new URL(url);
  const name = parsed.pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected database name ${name}`);
  parsed.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: parsed.toString() });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const db = createDb({ url, poolMax: 4 });
  await migrateLatest(db);
  return db;
}

export interface BenchWorkspace {
  orgId: string;
  leads: number;
}

/**
 * The workspace named `name` with exactly `leads` leads: reused when present and complete,
 * otherwise (re)created and loaded with the bulk generator, so reruns skip the load. With
 * `rebuildIndexes`, the load drops the tables' secondary indexes and builds them after it
 * (`seed bulk --rebuild-indexes`): for the million-lead workspace, loaded first into the
 * benchmark's own database, where that is cheaper than keeping the indexes up to date; the
 * others go through every index, as into a database other workspaces use.
 */
export async function ensureWorkspace(
  db: Db, name: string, leads: number, options: { rebuildIndexes?: boolean } = {},
): Promise<BenchWorkspace & { loaded?: Pick<SeedBulkResult, 'loadSeconds' | 'indexesSeconds' | 'vacuumSeconds' | 'seconds'> }> {
  const existing = await db('organisations').where({ name }).select('id');
  for (const row of existing) {
    const counted = await db('leads').where('org_id', row.id).count({ n: '*' });
    if (Number(counted[0]?.n) === leads && existing.length === 1) return { orgId: row.id, leads };
  }
  // An interrupted load or a duplicate: start the workspace again.
  await db('organisations').whereIn('id', existing.map((r: { id: string }) => r.id)).delete();
  const org = await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  process.stderr.write(`loading ${leads} leads into ${name}\n`);
  const result = await seedBulk(db, { orgId: org.id, leads, rebuildIndexes: options.rebuildIndexes ?? false, onProgress: progressBar(process.stderr, Boolean(process.stderr.isTTY)) });
  const { loadSeconds, indexesSeconds, vacuumSeconds, seconds } = result;
  return { orgId: org.id, leads, loaded: { loadSeconds, indexesSeconds, vacuumSeconds, seconds } };
}

/**
 * The workspace creates are written to (made on first use), so the read workspaces keep their sizes
 * between runs; `name` names another (bench/writes.ts spreads creates over ten).
 */
export async function writesWorkspaceId(db: Db, name = 'bench writes'): Promise<string> {
  const found = await db('organisations').where({ name }).first('id');
  return found?.id ?? (await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'] })).id;
}

/** The server's `version()`, for the machine line of a report. */
export async function postgresVersion(db: Db): Promise<string> {
  return (await db.raw('select version() as v')).rows[0].v as string;
}

/** A fresh key with every scope, for the service's own cases. */
export async function createBenchKey(db: Db, orgId: string): Promise<string> {
  const issued = await issueApiKey(db, KNOWN_SCOPES, { orgId, name: `bench ${new Date().toISOString()}`, scopes: [...KNOWN_SCOPES], expiresAt: null });
  return issued.key;
}

/** Values the cases need from the large workspace: a lead id, its top assignee, search terms. */
export async function sampleOf(db: Db, orgId: string) {
  const lead = await db('leads as l')
    .join('contacts as c', function joinContact() {
      this.on('c.org_id', 'l.org_id').andOn('c.id', 'l.contact_id');
    })
    .where('l.org_id', orgId)
    .whereRaw("c.phones[1] like '+44%' and cardinality(c.emails) > 0")
    .orderBy('l.created_at', 'desc')
    .select('l.id', 'c.emails', 'c.phones')
    .first();
  const top = await db('leads').where('org_id', orgId).whereNotNull('assigned_to_id')
    .groupBy('assigned_to_id').orderByRaw('count(*) desc').select('assigned_to_id').first();
  const phone: string = lead.phones[0];
  // A fragment of a UK mobile as a person types it (national format with a space): 07512 345.
  const digits = phone.replace(/^\+44/, '0');
  return {
    leadId: lead.id as string,
    assigneeId: top.assigned_to_id as string,
    rareTerm: (lead.emails[0] as string).split('@')[0]!,
    phoneFragment: `${digits.slice(0, 5)} ${digits.slice(5, 8)}`,
  };
}

/** The million-lead workspace every focused benchmark measures. */
export const LARGE_WORKSPACE = 'bench large 1000000';

/**
 * What a focused benchmark needs before it starts its servers: the million-lead workspace (seeded
 * when missing), a key to it, a sample of its data and PostgreSQL's version; with `writes`, the
 * writes workspace and a key to it as well. The connection is closed before it answers.
 */
export async function openLargeWorkspace(url: string, options: { writes?: boolean } = {}) {
  const db = await openBenchDatabase(url);
  try {
    const { orgId } = await ensureWorkspace(db, LARGE_WORKSPACE, 1_000_000, { rebuildIndexes: true });
    const key = await createBenchKey(db, orgId);
    const sample = await sampleOf(db, orgId);
    const pgVersion = await postgresVersion(db);
    const writesOrgId = options.writes ? await writesWorkspaceId(db) : undefined;
    const writes = writesOrgId ? { orgId: writesOrgId, key: await createBenchKey(db, writesOrgId) } : undefined;
    // Leads to change (bench/ratios.ts's update case): ids are random, so the first by id are spread over the workspace.
    const updateIds = (await db('leads').where('org_id', orgId).orderBy('id').limit(2000).pluck('id')) as string[];
    return { orgId, key, sample, pgVersion, writes, updateIds };
  } finally {
    await db.destroy();
  }
}

/**
 * A focused read benchmark's workspace: with `quick`, a 10,000-lead one of the given name (seeded
 * when missing) with a key, a sample and PostgreSQL's version; otherwise the million-lead one.
 */
export async function readsWorkspace(url: string, quick: boolean, quickName: string) {
  if (!quick) return openLargeWorkspace(url);
  const db = await openBenchDatabase(url);
  try {
    const { orgId } = await ensureWorkspace(db, quickName, 10_000);
    return { orgId, key: await createBenchKey(db, orgId), sample: await sampleOf(db, orgId), pgVersion: await postgresVersion(db) };
  } finally {
    await db.destroy();
  }
}

/** Keys for the baseline build in its own database, issued by that build's own code. */
export async function baselineKeys(entry: string, databaseUrl: string, orgIds: string[]): Promise<string[]> {
  const dist = dirname(dirname(entry));
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { createDb: createBaselineDb } = require(`${dist}/src/db/knex.js`);
  const { issueApiKey: issueBaselineKey } = require(`${dist}/src/auth/api-keys.js`);
  // Where the baseline keeps the scopes a key can be given (src/auth/scopes.ts since #41).
  const scopes: ReadonlySet<string> = existsSync(`${dist}/src/auth/scopes.js`)
    ? require(`${dist}/src/auth/scopes.js`).KNOWN_SCOPES
    : require(`${dist}/src/procedures/scopes.js`).knownScopes();
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = createBaselineDb({ url: databaseUrl, poolMax: 1 });
  try {
    const keys: string[] = [];
    for (const orgId of orgIds) {
      keys.push((await issueBaselineKey(db, scopes, { orgId, name: `ratios ${new Date().toISOString()}`, scopes: [...scopes], expiresAt: null })).key);
    }
    return keys;
  } finally {
    await db.destroy();
  }
}
