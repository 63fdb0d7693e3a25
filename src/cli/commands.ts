import { z } from 'zod';
import type { Db } from '../db/knex';
import { migrateLatest } from '../db/migrator';
import * as orgsQueries from '../db/queries/orgs.queries';
import * as membersQueries from '../db/queries/members.queries';
import * as apiKeysQueries from '../db/queries/api-keys.queries';
import { issueApiKey } from '../auth/api-keys';
import { knownScopes } from '../procedures/scopes';
import { seedDemo } from '../../seeds/01_demo_workspaces';
import { AppError } from '../errors/app-error';
import { ConfigError, type Config } from '../config';
import { createJwtKeys, resolveJwtSecrets } from '../auth/secrets';
import { signMemberSession } from '../auth/member-session';
import { seedBulk, progressBar } from './seed-bulk';
import * as deferredIndexesQueries from '../db/queries/deferred-indexes.queries';

export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

export class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;

interface Command<Args, Result> {
  /** How many positional words name the command (`key create` is 2). */
  words: number;
  parse(values: Values, rest: string[]): Args;
  run(db: Db, args: Args, config: Config): Promise<Result>;
  /** The human-readable line printed without --json. */
  describe(result: Result): string;
}

function defineCommand<Args, Result>(command: Command<Args, Result>): Command<unknown, unknown> {
  return command as Command<unknown, unknown>;
}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`missing --${name}`);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function list(value: string | undefined): string[] {
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

function noPositionals(rest: string[]): void {
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
}

const tier = z.enum(['FREE', 'PRO', 'BUSINESS']);

export const COMMANDS: Record<string, Command<unknown, unknown>> = {
  migrate: defineCommand({
    words: 1,
    parse: (_values, rest) => noPositionals(rest),
    run: async (db) => ({ applied: await migrateLatest(db) }),
    describe: (r) => (r.applied.length ? `applied: ${r.applied.join(', ')}` : 'schema is up to date'),
  }),
  'org create': defineCommand({
    words: 2,
    parse(values, rest) {
      noPositionals(rest);
      const parsedTier = tier.safeParse(required(values, 'tier'));
      if (!parsedTier.success) throw new UsageError('--tier must be FREE, PRO or BUSINESS');
      const region = (optional(values, 'region') ?? 'GB').toUpperCase();
      if (!/^[A-Z]{2}$/.test(region)) throw new UsageError('--region must be a two-letter country code, e.g. GB');
      return { name: required(values, 'name'), tier: parsedTier.data, features: list(optional(values, 'features')), phoneRegion: region };
    },
    run: async (db, args) => ({ id: (await orgsQueries.create(db, args)).id }),
    describe: (r) => `created workspace ${r.id}`,
  }),
  'member create': defineCommand({
    words: 2,
    parse(values, rest) {
      noPositionals(rest);
      const email = required(values, 'email');
      if (!z.email().safeParse(email.trim()).success) throw new UsageError('--email must be an email address');
      return { org: required(values, 'org'), name: required(values, 'name'), email, permissions: list(optional(values, 'permissions')) };
    },
    async run(db, args) {
      if (!(await orgsQueries.getById(db, args.org))) throw new AppError('NOT_FOUND', `no workspace ${args.org}`);
      return { id: (await membersQueries.create(db, args.org, args)).id };
    },
    describe: (r) => `created member ${r.id}`,
  }),
  'member token': defineCommand({
    words: 2,
    parse: (values, rest) => (noPositionals(rest), { memberId: required(values, 'member') }),
    async run(db, args, config) {
      const orgId = await membersQueries.findOrgIdOf(db, args.memberId);
      if (!orgId) throw new AppError('NOT_FOUND', `no member ${args.memberId}`);
      const jwtSecrets = resolveJwtSecrets(config);
      if (jwtSecrets.source === 'per process') {
        throw new ConfigError('Invalid environment variable SESSION_SECRET: set it to the service\'s own to sign a session the service accepts');
      }
      const session = signMemberSession(createJwtKeys(jwtSecrets.secrets).session, { memberId: args.memberId, orgId });
      return { token: session.token, expiresAt: session.expiresAt };
    },
    describe: (r) => `member session (until ${r.expiresAt.toISOString()}; send as Authorization: Bearer <session>):\n${r.token}`,
  }),
  'key create': defineCommand({
    words: 2,
    parse(values, rest) {
      noPositionals(rest);
      const expires = optional(values, 'expires-at');
      const expiresAt = expires === undefined ? null : new Date(expires);
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be an ISO 8601 time');
      const scopes = list(required(values, 'scopes'));
      return { orgId: required(values, 'org'), memberId: optional(values, 'member'), name: optional(values, 'name'), scopes, expiresAt };
    },
    async run(db, args) {
      const issued = await issueApiKey(db, knownScopes(), args);
      return { id: issued.id, key: issued.key, prefix: issued.prefix, scopes: issued.scopes, expiresAt: issued.expiresAt };
    },
    describe: (r) => `created key ${r.id} with scopes ${r.scopes.join(', ')}\n${r.key}\n(the secret is shown once: store it now)`,
  }),
  'key list': defineCommand({
    words: 2,
    parse: (values, rest) => (noPositionals(rest), { org: required(values, 'org') }),
    run: (db, args) => apiKeysQueries.listByOrg(db, args.org),
    describe: (keys) =>
      keys.length === 0
        ? 'no keys'
        : keys
            .map((k) => `${k.id}  ${k.prefix}…  ${k.name}  [${k.scopes.join(',')}]${k.revokedAt ? `  revoked ${k.revokedAt.toISOString()}` : ''}${k.expiresAt ? `  expires ${k.expiresAt.toISOString()}` : ''}${k.lastUsedAt ? `  last used ${k.lastUsedAt.toISOString()}` : ''}`)
            .join('\n'),
  }),
  'key revoke': defineCommand({
    words: 2,
    parse(_values, rest) {
      if (rest.length !== 1) throw new UsageError('give exactly one KEY_ID');
      return { keyId: rest[0]! };
    },
    async run(db, args) {
      const key = await apiKeysQueries.revoke(db, args.keyId);
      if (!key) throw new AppError('NOT_FOUND', `no key ${args.keyId}`);
      return { id: key.id, revokedAt: key.revokedAt };
    },
    describe: (r) => `revoked key ${r.id} at ${r.revokedAt?.toISOString()}`,
  }),
  'seed demo': defineCommand({
    words: 2,
    parse: (_values, rest) => noPositionals(rest),
    run: (db) => seedDemo(db),
    describe: (r) => `demo workspace ${r.orgId}\ndemo key (every scope): ${r.key}\nlower-tier workspace ${r.lowerTierOrgId}, key: ${r.lowerTierKey}`,
  }),
  'seed bulk': defineCommand({
    words: 2,
    parse(values, rest) {
      noPositionals(rest);
      const leads = Number(required(values, 'leads'));
      if (!Number.isInteger(leads) || leads < 1 || leads > 10_000_000) throw new UsageError('--leads must be a whole number from 1 to 10000000');
      if (values['rebuild-indexes'] && values['keep-indexes']) throw new UsageError('give --rebuild-indexes or --keep-indexes, not both');
      const rebuildIndexes: boolean | 'auto' = values['rebuild-indexes'] ? true : values['keep-indexes'] ? false : 'auto';
      return { orgId: required(values, 'org'), leads, rebuildIndexes, json: values.json === true };
    },
    // The progress bar goes to stderr, and only for people: --json output stays one line on stdout.
    run: (db, args) =>
      seedBulk(db, { orgId: args.orgId, leads: args.leads, rebuildIndexes: args.rebuildIndexes, onProgress: args.json ? undefined : progressBar(process.stderr, process.stderr.isTTY) }),
    describe: (r) => `loaded ${r.leads} leads into ${r.orgId} (${r.members} members) in ${r.seconds}s (${r.loadSeconds}s to the last batch, then ${r.indexesRebuilt ? `${r.indexesRebuilt} indexes built in ${r.indexesSeconds}s, ` : ''}counters folded and tables vacuumed in ${r.vacuumSeconds}s)`,
  }),
  'indexes rebuild': defineCommand({
    words: 2,
    parse: (_values, rest) => noPositionals(rest),
    run: async (db) => ({ rebuilt: await deferredIndexesQueries.rebuildDeferredIndexes(db) }),
    describe: (r) => (r.rebuilt.length ? `built: ${r.rebuilt.join(', ')}` : 'no index was waiting to be built'),
  }),
};
