import { execFileSync } from 'node:child_process';
import pg from 'pg';

/**
 * The run's databases. By default they are made with CREATE DATABASE on the server named by
 * TEST_DATABASE_URL. A Citus cluster does not propagate CREATE DATABASE, so there
 * TEST_DATABASE_COMMAND names a command that answers `createdb NAME` with the URL of a ready
 * database (citus on every node, workers added) and takes `dropdb NAME`:
 * `../shared/citus/cluster.sh` is one.
 */
export async function createTestDatabase(name: string, adminUrl: string | undefined): Promise<string> {
  const command = process.env.TEST_DATABASE_COMMAND;
  if (command) {
    const out = execFileSync('bash', ['-c', `${command} createdb ${name}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    return out.trim().split('\n').pop()!;
  }
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL or TEST_DATABASE_COMMAND');
  await runSql(adminUrl, `create database ${name}`);
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}

export async function dropTestDatabase(name: string, adminUrl: string | undefined): Promise<void> {
  const command = process.env.TEST_DATABASE_COMMAND;
  if (command) {
    execFileSync('bash', ['-c', `${command} dropdb ${name}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    return;
  }
  if (adminUrl) await runSql(adminUrl, `drop database if exists ${name} with (force)`);
}

/** Whether the run's database is a Citus coordinator (its workspace tables are distributed). */
export async function isCitus(url: string): Promise<boolean> {
  const rows = await runSql(url, `select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  return rows[0].citus === true;
}

export async function runSql(url: string, sql: string): Promise<any[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
