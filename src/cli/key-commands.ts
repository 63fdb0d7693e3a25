import * as apiKeysQueries from '../db/api-keys';
import { DEFAULT_PREVIOUS_SECRET_SECONDS, issueApiKey, MAX_PREVIOUS_SECRET_SECONDS, rollApiKey } from '../auth/api-keys';
import { KNOWN_SCOPES } from '../auth/scopes';
import { AppError } from '../errors/app-error';
import { defineCommand, list, noOperands, oneOperand, optional, required, UsageError } from './command';
import { printable } from './table';

export const keyCreate = defineCommand({
  name: 'key create',
  summary: 'issue an API key for a workspace (its secret is printed once)',
  options: [
    { flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true },
    { flags: '--scopes <LIST>', description: 'comma-separated scopes, e.g. leads.read,leads.create', required: true },
    { flags: '--member <MEMBER>', description: 'the member the key acts for (mem_...; see `member list`)' },
    { flags: '--name <NAME>', description: 'a label to tell the key apart in `key list`' },
    { flags: '--expires-at <ISO>', description: 'an ISO 8601 time after which the key is refused (default: never)' },
  ],
  examples: [
    'key create --org ORG --scopes leads.read,leads.create --name Zapier',
    'key create --org ORG --member MEMBER --scopes leads.read --expires-at 2030-01-01T00:00:00Z --json',
  ],
  parse(values, operands) {
    noOperands(operands);
    const expires = optional(values, 'expires-at');
    const expiresAt = expires === undefined ? null : new Date(expires);
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be an ISO 8601 time');
    const scopes = list(required(values, 'scopes'));
    return { orgId: required(values, 'org'), memberId: optional(values, 'member'), name: optional(values, 'name'), scopes, expiresAt };
  },
  async run(db, args) {
    const issued = await issueApiKey(db, KNOWN_SCOPES, args);
    return { id: issued.id, key: issued.key, prefix: issued.prefix, scopes: issued.scopes, expiresAt: issued.expiresAt };
  },
  describe: (r) => `created key ${r.id} with scopes ${r.scopes.join(', ')}\n${r.key}\n(the secret is shown once: store it now)`,
});

export const keyList = defineCommand({
  name: 'key list',
  summary: 'list a workspace\'s API keys: prefix, name, scopes, expiry, revocation, last use (never the secret)',
  options: [{ flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true }],
  examples: ['key list --org ORG', 'key list --org ORG --json'],
  parse: (values, operands) => (noOperands(operands), { org: required(values, 'org') }),
  run: (db, args) => apiKeysQueries.listByOrg(db, args.org),
  describe: (keys) =>
    keys.length === 0
      ? 'no keys'
      : keys
          .map((k) => `${k.id}  ${k.prefix}…  ${printable(k.name)}  [${k.scopes.join(',')}]${k.revokedAt ? `  revoked ${k.revokedAt.toISOString()}` : ''}${k.expiresAt ? `  expires ${k.expiresAt.toISOString()}` : ''}${k.lastUsedAt ? `  last used ${k.lastUsedAt.toISOString()}` : ''}${k.previousSecret ? `  previous ${k.previousSecret.prefix}… until ${k.previousSecret.expiresAt.toISOString()}` : ''}`)
          .join('\n'),
});

export const keyRevoke = defineCommand({
  name: 'key revoke',
  summary: 'revoke an API key: it is refused from the next request on',
  operand: { name: 'KEY_ID', description: 'the key id (key_...; see `key list`)' },
  options: [],
  examples: ['key revoke KEY_ID'],
  parse: (_values, operands) => ({ keyId: oneOperand(operands, 'KEY_ID') }),
  async run(db, args) {
    const key = await apiKeysQueries.revoke(db, args.keyId);
    if (!key) throw new AppError('NOT_FOUND', `no key ${args.keyId}`);
    return { id: key.id, revokedAt: key.revokedAt };
  },
  describe: (r) => `revoked key ${r.id} at ${r.revokedAt?.toISOString()}`,
});

export const keyRoll = defineCommand({
  name: 'key roll',
  summary: 'give an API key a new secret (printed once); the previous one works for a day, or as long as given',
  operand: { name: 'KEY_ID', description: 'the key id (key_...; see `key list`)' },
  options: [
    { flags: '--expire-previous-in <SECONDS>', description: `seconds the previous secret keeps working, 0 to ${MAX_PREVIOUS_SECRET_SECONDS} (7 days; default ${DEFAULT_PREVIOUS_SECRET_SECONDS}); 0 refuses it at once` },
  ],
  examples: ['key roll KEY_ID', 'key roll KEY_ID --expire-previous-in 0 --json'],
  parse(values, operands) {
    const keyId = oneOperand(operands, 'KEY_ID');
    const given = optional(values, 'expire-previous-in');
    const seconds = given === undefined ? DEFAULT_PREVIOUS_SECRET_SECONDS : /^\d{1,7}$/.test(given) ? Number(given) : NaN;
    if (!(seconds >= 0 && seconds <= MAX_PREVIOUS_SECRET_SECONDS)) {
      throw new UsageError(`--expire-previous-in must be a whole number of seconds from 0 to ${MAX_PREVIOUS_SECRET_SECONDS}`);
    }
    return { keyId, seconds };
  },
  async run(db, args) {
    const orgId = await apiKeysQueries.findOrgOfKey(db, args.keyId);
    if (!orgId) throw new AppError('NOT_FOUND', `no key ${args.keyId}`);
    const rolled = await rollApiKey(db, orgId, args.keyId, args.seconds);
    return { id: rolled.id, key: rolled.key, prefix: rolled.prefix, previousSecretExpiresAt: rolled.previousSecretExpiresAt };
  },
  describe: (r) =>
    `rolled key ${r.id}\n${r.key}\n(the secret is shown once: store it now)\n` +
    (r.previousSecretExpiresAt ? `the previous secret works until ${r.previousSecretExpiresAt.toISOString()}` : 'the previous secret no longer works'),
});
