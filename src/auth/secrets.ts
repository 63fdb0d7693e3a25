import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, describeProblems, isRelaxedMode, JWT_SECRET_REQUIRED, missingJwtSecrets, type Config } from '../config';

/** The secrets that sign member sessions and playground tokens. */
export interface JwtSecrets {
  SESSION_SECRET: string;
  TOKEN_SECRET: string;
}

/** The HS256 keys for member sessions and playground tokens. */
export interface JwtKeys {
  session: KeyObject;
  token: KeyObject;
}

/** Where the secrets in use came from: the log line at start says it. */
export type JwtSecretsSource = 'environment' | 'data directory' | 'per process';

/** Beside the embedded database's files, readable by its owner only. */
export const EMBEDDED_SECRETS_FILE = 'jwt-secrets.json';

/**
 * The secrets this process signs and verifies with. Nothing in the repository is ever one of
 * them: a variable the environment sets wins; otherwise the embedded database keeps random ones
 * in its data directory (mode 0600, made on first start, so sessions survive a restart and the
 * CLI signs what the service accepts); with DATABASE_URL a missing one stops the process, unless
 * NODE_ENV explicitly asks for development or test, where each process draws its own.
 */
export function resolveJwtSecrets(
  config: Pick<Config, 'DATABASE_URL' | 'EMBEDDED_DB_DIR' | 'NODE_ENV'> & Partial<JwtSecrets>,
): { secrets: JwtSecrets; source: JwtSecretsSource } {
  if (config.SESSION_SECRET && config.TOKEN_SECRET) {
    return { secrets: { SESSION_SECRET: config.SESSION_SECRET, TOKEN_SECRET: config.TOKEN_SECRET }, source: 'environment' };
  }
  if (!config.DATABASE_URL) {
    const stored = embeddedSecrets(config.EMBEDDED_DB_DIR);
    return { secrets: { ...stored, ...definedSecrets(config) }, source: 'data directory' };
  }
  if (!isRelaxedMode(config)) {
    // loadConfig({ signsTokens: true }) names these with any other bad variable; this is the last guard.
    throw new ConfigError(describeProblems(new Map(missingJwtSecrets(config).map((name) => [name, JWT_SECRET_REQUIRED]))));
  }
  return { secrets: { SESSION_SECRET: randomSecret(), TOKEN_SECRET: randomSecret(), ...definedSecrets(config) }, source: 'per process' };
}

/** jsonwebtoken 9 verifying with a string secret costs about 0.45 ms per call; with a KeyObject made once, about 6 us. */
export function createJwtKeys(secrets: JwtSecrets): JwtKeys {
  return {
    session: createSecretKey(Buffer.from(secrets.SESSION_SECRET, 'utf8')),
    token: createSecretKey(Buffer.from(secrets.TOKEN_SECRET, 'utf8')),
  };
}

function definedSecrets(config: Partial<JwtSecrets>): Partial<JwtSecrets> {
  return Object.fromEntries(Object.entries({ SESSION_SECRET: config.SESSION_SECRET, TOKEN_SECRET: config.TOKEN_SECRET }).filter(([, v]) => v));
}

function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The data directory's secrets, made on first use. Written whole to a private temporary file and
 * linked into place, which fails if the file exists: of two processes starting at once one writes
 * them, and both read the same complete file.
 */
function embeddedSecrets(dir: string): JwtSecrets {
  const folder = resolve(dir);
  const file = join(folder, EMBEDDED_SECRETS_FILE);
  mkdirSync(folder, { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${JSON.stringify({ SESSION_SECRET: randomSecret(), TOKEN_SECRET: randomSecret() })}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
  // A file copied in with wider permissions is narrowed, as ssh does with its keys.
  chmodSync(file, 0o600);
  const stored = parseStored(readFileSync(file, 'utf8'));
  if (!stored) throw new ConfigError(`${file} does not hold two secrets of 32 or more characters: delete it to have new ones made (signed-in sessions end)`);
  return stored;
}

function parseStored(text: string): JwtSecrets | undefined {
  try {
    const { SESSION_SECRET, TOKEN_SECRET } = JSON.parse(text) as Partial<Record<keyof JwtSecrets, unknown>>;
    const valid = (value: unknown): value is string => typeof value === 'string' && value.length >= 32;
    return valid(SESSION_SECRET) && valid(TOKEN_SECRET) ? { SESSION_SECRET, TOKEN_SECRET } : undefined;
  } catch {
    return undefined;
  }
}
