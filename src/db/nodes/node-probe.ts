import pg from 'pg';
import type { Db } from '../knex';
import { TABLES } from '../tables';

/** A probe's answer may take this long (a node hung for longer): then its connection goes and a new probe asks again. */
const PROBE_TIMEOUT_MS = 30_000;

/**
 * Asks whether a node answers: one trivial statement on a connection of its own, made from the
 * pool's settings but without the statement timeout, so it waits on a hung node and is answered
 * the moment the node resumes. A statement that times out on Citus leaves its coordinator session
 * blocked on the hung worker until it resumes (the cancel cannot reach it), so probing by requests
 * every few seconds left a session behind each time, and the resumed worker served all of them
 * before the next request; one waiting probe leaves none. `workspace` names a workspace the node
 * holds, whose row the statement reads (on one PostgreSQL it reads nothing).
 */
export async function probeNode(db: Db, workspace: string | undefined): Promise<void> {
  const { statement_timeout: _statementTimeout, query_timeout: _queryTimeout, ...connection } = db.client.config.connection as pg.ClientConfig;
  const client = new pg.Client({ ...connection, application_name: 'workspace-api node probe', query_timeout: PROBE_TIMEOUT_MS });
  // An error on an idle socket (the node went away between statements) must not be unhandled.
  client.on('error', () => undefined);
  try {
    await client.connect();
    if (workspace === undefined) await client.query('select 1');
    else await client.query(`select 1 from ${TABLES.organisations} where id = $1`, [workspace]);
  } finally {
    await client.end().catch(() => undefined);
  }
}
