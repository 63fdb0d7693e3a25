import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { EMBEDDED_SECRETS_FILE, resolveJwtSecrets } from '../../src/auth/secrets';

const MODES = [undefined, 'development', 'test', 'production'] as const;
const OWN = { SESSION_SECRET: 'S'.repeat(40), TOKEN_SECRET: 'T'.repeat(40) };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsapi-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a process started with this environment would sign with, or the one line it stops with. */
function resolved(env: Record<string, string | undefined>) {
  try {
    return resolveJwtSecrets(loadConfig({ EMBEDDED_DB_DIR: join(dir, 'data'), ...env }));
  } catch (err) {
    if (err instanceof ConfigError) return { refused: err.message };
    throw err;
  }
}

describe('resolveJwtSecrets in every mode', () => {
  it.each(MODES)('NODE_ENV=%s: the environment\'s own secrets are used as given, on either database', (NODE_ENV) => {
    for (const DATABASE_URL of [undefined, 'postgres://app@db/crm']) {
      if (NODE_ENV === 'production' && !DATABASE_URL) continue; // production refuses the embedded database
      expect(resolved({ NODE_ENV, DATABASE_URL, ...OWN })).toEqual({ secrets: OWN, source: 'environment' });
    }
  });

  it.each([undefined, 'development', 'test'] as const)('NODE_ENV=%s on the embedded database: random secrets kept in the data directory, mode 0600, the same at the next start', (NODE_ENV) => {
    const first = resolved({ NODE_ENV });
    const file = join(dir, 'data', EMBEDDED_SECRETS_FILE);
    expect(first).toMatchObject({ source: 'data directory' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolved({ NODE_ENV })).toEqual(first);
    const { secrets } = first as { secrets: typeof OWN };
    expect(secrets.SESSION_SECRET).not.toEqual(secrets.TOKEN_SECRET);
    expect(secrets.SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('on the embedded database a variable the environment sets wins over the stored one', () => {
    const stored = resolved({}) as { secrets: typeof OWN };
    expect(resolved({ SESSION_SECRET: OWN.SESSION_SECRET })).toEqual({ secrets: { ...stored.secrets, SESSION_SECRET: OWN.SESSION_SECRET }, source: 'data directory' });
  });

  it('narrows a stored file with wider permissions to 0600 and refuses one that holds no usable secrets', () => {
    resolved({});
    const file = join(dir, 'data', EMBEDDED_SECRETS_FILE);
    writeFileSync(file, readFileSync(file), { mode: 0o644 });
    resolved({});
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, '{"SESSION_SECRET":"short"}');
    expect(resolved({})).toEqual({ refused: expect.stringMatching(/jwt-secrets\.json does not hold two secrets/) });
  });

  it.each([undefined, 'production'] as const)('NODE_ENV=%s with DATABASE_URL: missing secrets stop the process with one message naming each', (NODE_ENV) => {
    const url = 'postgres://app@db/crm';
    expect(resolved({ NODE_ENV, DATABASE_URL: url })).toEqual({
      refused: expect.stringMatching(/^Invalid environment variables SESSION_SECRET, TOKEN_SECRET:\n {2}SESSION_SECRET: required with DATABASE_URL[^\n]*\n {2}TOKEN_SECRET: required with DATABASE_URL/),
    });
    expect(resolved({ NODE_ENV, DATABASE_URL: url, SESSION_SECRET: OWN.SESSION_SECRET })).toEqual({ refused: expect.stringMatching(/^Invalid environment variable TOKEN_SECRET: required with DATABASE_URL/) });
  });

  it.each(['development', 'test'] as const)('NODE_ENV=%s with DATABASE_URL: a missing secret is drawn at random for this process only', (NODE_ENV) => {
    const a = resolved({ NODE_ENV, DATABASE_URL: 'postgres://app@db/crm' }) as { secrets: typeof OWN; source: string };
    const b = resolved({ NODE_ENV, DATABASE_URL: 'postgres://app@db/crm' }) as { secrets: typeof OWN; source: string };
    expect(a.source).toBe('per process');
    expect(a.secrets.SESSION_SECRET).not.toEqual(b.secrets.SESSION_SECRET);
    expect(a.secrets.TOKEN_SECRET).not.toEqual(b.secrets.TOKEN_SECRET);
    expect(resolved({ NODE_ENV, DATABASE_URL: 'postgres://app@db/crm', TOKEN_SECRET: OWN.TOKEN_SECRET })).toMatchObject({ secrets: { TOKEN_SECRET: OWN.TOKEN_SECRET } });
  });
});
