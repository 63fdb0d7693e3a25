import { ConfigError, isRelaxedMode, loadConfig } from '../../src/config';

/** The development defaults this repository once published: anyone can sign with them. */
const FORMER_PUBLISHED_SECRETS = { SESSION_SECRET: 'dev-only-session-secret-change-me-0000000000', TOKEN_SECRET: 'dev-only-token-secret-change-me-00000000000000' };

function errorOf(env: NodeJS.ProcessEnv): unknown {
  try {
    loadConfig(env);
  } catch (err) {
    return err;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  it('answers the defaults for an empty environment: port 3000, embedded database in ./data, 1-second key cache', () => {
    expect(loadConfig({})).toEqual({
      CHECK_OUTPUTS: false,
      PORT: 3000,
      HOST: '0.0.0.0',
      EMBEDDED_DB_DIR: './data',
      DB_POOL_MAX: 10,
      DB_ACQUIRE_TIMEOUT_MS: 3000,
      DB_STATEMENT_TIMEOUT_MS: 2000,
      DB_NODE_POOL_SHARE: 0.5,
      DB_BREAKER_FAILURES: 3,
      DB_BREAKER_OPEN_MS: 200,
      DB_NAMED_STATEMENTS: true,
      BODY_LIMIT: '1mb',
      LOG_LEVEL: 'info',
      KEY_CACHE_TTL_MS: 1000,
      LIVE_POLL_MS: 10_000,
      SSE_MAX_DURATION_MS: 1_800_000,
      SSE_PING_MS: 10_000,
      SSE_RECHECK_MS: 500,
      KEY_CACHE_LIVE_TTL_MS: 60_000,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: 30,
      TRUST_PROXY: false,
      WEBHOOK_TIMEOUT_MS: 5000,
      WEBHOOK_RETRY_BASE_MS: 60_000,
      WEBHOOK_MAX_ATTEMPTS: 14,
      WEBHOOK_DISABLE_AFTER_MS: 3 * 86_400_000,
      WEBHOOK_WORKER_CONCURRENCY: 8,
      WEBHOOK_POLL_MS: 500,
      WORKER_HEALTH_PORT: 3001,
      EVENTS_RETENTION_DAYS: 30,
      TRASH_RETENTION_DAYS: 30,
      REQUEST_LOG_RETENTION_DAYS: 7,
      REQUEST_LOG: 'on',
      IMPORT_QUEUE_LIMIT: 10,
      IMPORT_MAX_RUNNING_PER_WORKSPACE: 2,
      IMPORT_WORKER_CONCURRENCY: 2,
      IMPORT_LEASE_MS: 30_000,
      IMPORT_POLL_MS: 1000,
      IMPORT_BATCH_ROWS: 1000,
      IMPORTS_RETENTION_DAYS: 30,
    });
    expect(loadConfig({}).DATABASE_URL).toBeUndefined();
  });

  it('has no default secret and no default NODE_ENV: unset is not a relaxed mode', () => {
    const config = loadConfig({});
    expect([config.SESSION_SECRET, config.TOKEN_SECRET, config.NODE_ENV]).toEqual([undefined, undefined, undefined]);
    expect([undefined, 'production', 'development', 'test'].map((NODE_ENV) => isRelaxedMode(loadConfig(NODE_ENV === 'production' ? { NODE_ENV, DATABASE_URL: 'postgres://h/d' } : { NODE_ENV }))))
      .toEqual([false, false, true, true]);
  });

  it.each(['development', 'test', 'production', undefined])('refuses the formerly published secrets under NODE_ENV=%s, naming the variable', (NODE_ENV) => {
    const base = { NODE_ENV, DATABASE_URL: 'postgres://app@db:5432/crm' };
    expect(() => loadConfig({ ...base, SESSION_SECRET: FORMER_PUBLISHED_SECRETS.SESSION_SECRET }))
      .toThrow(/^Invalid environment variable SESSION_SECRET: is a value published in this repository/);
    expect(() => loadConfig({ ...base, TOKEN_SECRET: FORMER_PUBLISHED_SECRETS.TOKEN_SECRET }))
      .toThrow(/^Invalid environment variable TOKEN_SECRET: is a value published in this repository/);
  });

  it('reads DB_NAMED_STATEMENTS as true or false only, naming the variable otherwise', () => {
    expect(loadConfig({ DB_NAMED_STATEMENTS: 'false' }).DB_NAMED_STATEMENTS).toBe(false);
    expect(loadConfig({ DB_NAMED_STATEMENTS: 'true' }).DB_NAMED_STATEMENTS).toBe(true);
    expect(() => loadConfig({ DB_NAMED_STATEMENTS: 'no' })).toThrow(/DB_NAMED_STATEMENTS/);
  });

  describe('with NODE_ENV=production', () => {
    const ready = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://app@db:5432/crm',
      SESSION_SECRET: 's'.repeat(40),
      TOKEN_SECRET: 't'.repeat(40),
    };

    it('starts with a database URL and its own secrets', () => {
      expect(loadConfig(ready)).toMatchObject({ NODE_ENV: 'production', DATABASE_URL: ready.DATABASE_URL });
    });

    it('refuses the embedded database, naming DATABASE_URL', () => {
      expect(() => loadConfig({ ...ready, DATABASE_URL: undefined })).toThrow(/^Invalid environment variable DATABASE_URL: required when NODE_ENV=production/);
    });
  });

  describe('every missing or invalid variable in one message', () => {
    const ownDatabase = { DATABASE_URL: 'postgres://app@db:5432/crm' };

    it('names both JWT secrets when the service starts on its own PostgreSQL without them', () => {
      expect(() => loadConfig(ownDatabase, { signsTokens: true })).toThrow(
        /^Invalid environment variables SESSION_SECRET, TOKEN_SECRET:\n {2}SESSION_SECRET: required with DATABASE_URL[^\n]*\n {2}TOKEN_SECRET: required with DATABASE_URL[^\n]*$/,
      );
    });

    it('names one missing secret on one line, as before', () => {
      expect(() => loadConfig({ ...ownDatabase, TOKEN_SECRET: 't'.repeat(40) }, { signsTokens: true }))
        .toThrow(/^Invalid environment variable SESSION_SECRET: required with DATABASE_URL[^\n]*$/);
    });

    it('names the secrets beside an invalid value of another variable, and every invalid one', () => {
      let message = '';
      try {
        loadConfig({ ...ownDatabase, PORT: 'eighty', METRICS_TOKEN: 'short', NODE_ENV: 'production' }, { signsTokens: true });
      } catch (err) {
        message = (err as Error).message;
      }
      const [first, ...lines] = message.split('\n');
      expect(first).toBe('Invalid environment variables PORT, METRICS_TOKEN, SESSION_SECRET, TOKEN_SECRET:');
      expect(lines.map((line) => line.split(':')[0]!.trim())).toEqual(['PORT', 'METRICS_TOKEN', 'SESSION_SECRET', 'TOKEN_SECRET']);
    });

    it('names the production database and the lease together', () => {
      expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_TIMEOUT_MS: '20000', WEBHOOK_LEASE_MS: '10000' }))
        .toThrow(/^Invalid environment variables DATABASE_URL, WEBHOOK_LEASE_MS:\n {2}DATABASE_URL: required when NODE_ENV=production[^\n]*\n {2}WEBHOOK_LEASE_MS: must be longer than WEBHOOK_TIMEOUT_MS$/);
    });

    it('asks no secret of a process that signs nothing (the CLI, the worker), nor on the embedded database or in development and test', () => {
      expect(loadConfig(ownDatabase).SESSION_SECRET).toBeUndefined();
      expect(loadConfig({}, { signsTokens: true }).DATABASE_URL).toBeUndefined();
      expect(loadConfig({ ...ownDatabase, NODE_ENV: 'development' }, { signsTokens: true }).NODE_ENV).toBe('development');
      expect(loadConfig({ ...ownDatabase, NODE_ENV: 'test' }, { signsTokens: true }).NODE_ENV).toBe('test');
    });
  });

  it('reads REQUEST_LOG (on or off) and REQUEST_LOG_RETENTION_DAYS (0 to 3650), refusing anything else by name', () => {
    expect(loadConfig({ REQUEST_LOG: 'off', REQUEST_LOG_RETENTION_DAYS: '0' })).toMatchObject({ REQUEST_LOG: 'off', REQUEST_LOG_RETENTION_DAYS: 0 });
    expect(() => loadConfig({ REQUEST_LOG: 'yes' })).toThrow(/REQUEST_LOG/);
    expect(() => loadConfig({ REQUEST_LOG_RETENTION_DAYS: '-1' })).toThrow(/REQUEST_LOG_RETENTION_DAYS/);
  });

  it('refuses a METRICS_TOKEN under 16 characters and a REDIS_URL that is not redis://', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^Invalid environment variable METRICS_TOKEN/);
    expect(() => loadConfig({ REDIS_URL: 'http://x' })).toThrow(/^Invalid environment variable REDIS_URL/);
  });

  it('reads given values, numbers as numbers', () => {
    const config = loadConfig({ PORT: '8080', DATABASE_URL: 'postgresql://app@db:5432/crm', DB_POOL_MAX: '20', KEY_CACHE_TTL_MS: '0', LOG_LEVEL: 'debug' });

    expect(config).toMatchObject({ PORT: 8080, DATABASE_URL: 'postgresql://app@db:5432/crm', DB_POOL_MAX: 20, KEY_CACHE_TTL_MS: 0, LOG_LEVEL: 'debug' });
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).DATABASE_URL).toBe('postgres://localhost/x');
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '' });

    expect(config.PORT).toBe(3000);
    expect(config).not.toHaveProperty('DATABASE_URL');
  });

  it('throws a ConfigError naming PORT for PORT=abc', () => {
    const err = errorOf({ PORT: 'abc' });

    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^Invalid environment variable PORT: /);
  });

  it('throws a ConfigError naming DATABASE_URL for a mysql:// URL', () => {
    const err = errorOf({ DATABASE_URL: 'mysql://x' });

    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('Invalid environment variable DATABASE_URL: must be a postgres:// URL');
  });

  it('refuses a key cache longer than the 1-second revocation bound', () => {
    const err = errorOf({ KEY_CACHE_TTL_MS: '5000' });

    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^Invalid environment variable KEY_CACHE_TTL_MS: /);
  });

  it('reads WORKER_HEALTH_PORT as a port (0 turns the worker\'s health endpoint off), naming it when it is not one', () => {
    expect(loadConfig({ WORKER_HEALTH_PORT: '0' }).WORKER_HEALTH_PORT).toBe(0);
    expect(loadConfig({ WORKER_HEALTH_PORT: '9464' }).WORKER_HEALTH_PORT).toBe(9464);
    for (const bad of ['abc', '-1', '65536', '30.5']) {
      const err = errorOf({ WORKER_HEALTH_PORT: bad });
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^Invalid environment variable WORKER_HEALTH_PORT: /);
    }
  });

  it('refuses a port out of range and a body limit without a size', () => {
    expect((errorOf({ PORT: '70000' }) as Error).message).toMatch(/variable PORT: /);
    expect((errorOf({ BODY_LIMIT: 'lots' }) as Error).message).toBe('Invalid environment variable BODY_LIMIT: must be a size such as 1mb or 524288');
  });
});
