import { parseOptions, type LoadOptions } from './load/options';
import { createLoadDatabase, leadsBySource, type LoadDatabase } from './load/database';
import { startLoadServer, type LoadServer } from './load/server';
import { createHttpClient, type HttpClient } from './load/http-client';
import { createRecorder } from './load/recorder';
import { runClients } from './load/clients';
import { account } from './load/accounting';
import { clusterServing, createPostgresRestarter, firstAccepting } from './load/postgres-restart';
import { evaluate, type FaultTimes } from './load/report';

/**
 * `npm run test:load`: 50 clients create leads (each under its own Idempotency-Key, retried with
 * it until acknowledged) and update them for 30 s against the compiled server on a fresh database;
 * then every acknowledged key must have exactly one lead. `--restart-postgres` restarts the local
 * cluster in the middle: calls must fail fast with 503 meanwhile and succeed again by themselves.
 * Exits 1 when a check fails.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.restartPostgres && options.restartAt + options.downSeconds >= options.seconds) {
    throw new Error('--restart-at plus --down-seconds must leave part of the run after PostgreSQL is back');
  }
  // Registered first, so that whatever happens later a stopped cluster is started again.
  const restarter = options.restartPostgres ? createPostgresRestarter(clusterServing(Number(new URL(options.adminUrl).port || 5432))) : undefined;
  let database: LoadDatabase | undefined;
  let server: LoadServer | undefined;
  let http: HttpClient | undefined;
  try {
    database = await createLoadDatabase(options.adminUrl);
    const name = new URL(database.url).pathname.slice(1);
    process.once('exit', (code) => {
      if (code === 130) process.stderr.write(`interrupted: drop the run's database with: psql -c 'drop database ${name} with (force)'\n`);
    });
    server = await startLoadServer({
      DATABASE_URL: database.url,
      DB_POOL_MAX: String(options.poolMax),
      DB_ACQUIRE_TIMEOUT_MS: String(options.acquireTimeoutMs),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    http = createHttpClient(server.baseUrl, { sockets: options.clients + 2, timeoutMs: options.requestTimeoutMs, authorization: `Bearer ${database.key}` });
    await waitFor(() => server!.listenerLiveAt().length > 0, 15_000, 'the key-cache LISTEN connection to go live');
    log(`server ${server.baseUrl} (log: ${server.logFile}); database ${name}`);
    return await measure(options, database, server, http, restarter);
  } finally {
    http?.close();
    await server?.stop();
    restarter?.dispose();
    if (database && !options.keepDatabase) await database.drop();
  }
}

async function measure(
  options: LoadOptions,
  database: LoadDatabase,
  server: LoadServer,
  http: HttpClient,
  restarter: ReturnType<typeof createPostgresRestarter> | undefined,
): Promise<number> {
  const recorder = createRecorder();
  const startedAt = Date.now();
  const until = startedAt + options.seconds * 1000;
  const readiness = watchReadiness(http);
  let fault: FaultTimes | undefined;
  const restart = restarter
    ? (async () => {
        await sleep(options.restartAt * 1000);
        fault = { stopIssuedAt: Date.now() };
        log(`stopping PostgreSQL ${restarter.label}`);
        await restarter.stop();
        fault.stoppedAt = Date.now();
        await sleep(options.downSeconds * 1000);
        log(`starting PostgreSQL ${restarter.label}`);
        const accepting = firstAccepting(database.url);
        await restarter.start();
        fault.backAt = await accepting;
      })()
    : Promise.resolve();
  log(`${options.clients} clients for ${options.seconds} s${restarter ? `, PostgreSQL restarted at +${options.restartAt} s` : ''}`);
  const [creates] = await Promise.all([runClients({ http, clients: options.clients, recorder, until, drainUntil: until + options.drainSeconds * 1000 }), restart]);
  const endedAt = Date.now();
  // A restart late in the run: give the service its full recovery time before judging it.
  const backAt = (fault as FaultTimes | undefined)?.backAt;
  if (backAt !== undefined) {
    const recovered = () => server.listenerLiveAt().some((t) => t >= backAt) && readiness.samples.some((r) => r.at >= backAt && r.status === 200);
    await waitFor(recovered, Math.max(0, backAt + options.recoverySeconds * 1000 - Date.now()), 'recovery').catch(() => undefined);
  }
  readiness.stop();
  const accounting = account(creates, await leadsBySource(database.db, database.orgId));
  const { lines, checks } = evaluate({
    clients: options.clients,
    seconds: options.seconds,
    startedAt,
    endedAt,
    samples: recorder.samples,
    creates,
    accounting,
    readiness: readiness.samples,
    listenerLiveAt: server.listenerLiveAt(),
    fault,
    limits: { acquireTimeoutMs: options.acquireTimeoutMs, recoverySeconds: options.recoverySeconds, requestTimeoutMs: options.requestTimeoutMs },
    postgresVersion: database.postgresVersion,
    poolMax: options.poolMax,
  });
  console.log(`\nLoad and faults${restarter ? ' (PostgreSQL restarted in the middle)' : ''}, ${new Date(startedAt).toISOString()}`);
  for (const line of lines) console.log(`- ${line}`);
  console.log('checks:');
  for (const check of checks) console.log(`  ${check.passed ? 'PASS' : 'FAIL'} ${check.name} (${check.detail.trim()})`);
  const failed = checks.filter((c) => !c.passed).length;
  console.log(failed === 0 ? 'all checks passed' : `${failed} check(s) failed`);
  return failed === 0 ? 0 : 1;
}

/** GET /readyz every 200 ms until stopped: when the service said it was (not) ready. */
function watchReadiness(http: HttpClient) {
  const samples: { at: number; status: number | undefined }[] = [];
  let running = true;
  void (async () => {
    while (running) {
      const outcome = await http.get('/readyz');
      samples.push({ at: outcome.endedAt, status: outcome.kind === 'answer' ? outcome.status : undefined });
      await sleep(200);
    }
  })();
  return {
    samples,
    stop: () => {
      running = false;
    },
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function log(message: string): void {
  process.stderr.write(`[load] ${message}\n`);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`load test failed to run: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    process.exitCode = 2;
  },
);
