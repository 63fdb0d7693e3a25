import pg from 'pg';
import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import * as orgsQueries from '../../src/db/orgs';
import { issueApiKey } from '../../src/auth/api-keys';
import { KNOWN_SCOPES } from '../../src/auth/scopes';

/** What a create stores in `source`, so the check can find the lead made under each key. */
export const SOURCE_PREFIX = 'load:';

export interface LoadDatabase {
  url: string;
  db: Db;
  orgId: string;
  key: string;
  postgresVersion: string;
  drop(): Promise<void>;
}

/** A new database on the admin URL's server, migrated, with one BUSINESS workspace and an every-scope key. */
export async function createLoadDatabase(adminUrl: string): Promise<LoadDatabase> {
  const name = `wsapi_load_${Date.now()}_${process.pid}`;
  const postgresVersion = await admin(adminUrl, async (client) => {
    await client.query(`create database ${name}`);
    return (await client.query<{ version: string }>('select version()')).rows[0]!.version;
  });
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const db = createDb({ url, poolMax: 2, onWarning: () => undefined });
  const drop = async () => {
    await db.destroy();
    await admin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
  };
  try {
    await migrateLatest(db);
    const org = await orgsQueries.create(db, { name: 'Load test', tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
    const issued = await issueApiKey(db, KNOWN_SCOPES, { orgId: org.id, name: 'load test', scopes: [...KNOWN_SCOPES], expiresAt: null });
    return { url, db, orgId: org.id, key: issued.key, postgresVersion, drop };
  } catch (err) {
    await drop();
    throw err;
  }
}

async function admin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every lead of the workspace with its `source`, read after the run. */
export async function leadsBySource(db: Db, orgId: string): Promise<{ id: string; source: string | null }[]> {
  return db('leads').where({ org_id: orgId }).select('id', 'source');
}
