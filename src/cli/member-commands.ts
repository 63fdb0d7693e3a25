import { z } from 'zod';
import * as orgsQueries from '../db/orgs';
import * as membersQueries from '../db/members';
import { AppError } from '../errors/app-error';
import { ConfigError } from '../config';
import { createJwtKeys, resolveJwtSecrets } from '../auth/secrets';
import { signMemberSession } from '../auth/member-session';
import { defineCommand, list, noOperands, optional, required, UsageError } from './command';
import { formatMembers } from './org-commands';

export const memberCreate = defineCommand({
  name: 'member create',
  summary: 'add a member to a workspace',
  options: [
    { flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true },
    { flags: '--name <NAME>', description: 'the member\'s name', required: true },
    { flags: '--email <EMAIL>', description: 'the member\'s email address (stored lower-cased)', required: true },
    { flags: '--permissions <LIST>', description: 'comma-separated permissions, e.g. DEVELOPER,ADMIN (default: none)' },
  ],
  examples: ['member create --org ORG --name "Ana Smith" --email ana@example.com --permissions DEVELOPER'],
  parse(values, operands) {
    noOperands(operands);
    const email = required(values, 'email');
    if (!z.email().safeParse(email.trim()).success) throw new UsageError('--email must be an email address');
    return { org: required(values, 'org'), name: required(values, 'name'), email, permissions: list(optional(values, 'permissions')) };
  },
  async run(db, args) {
    if (!(await orgsQueries.getById(db, args.org))) throw new AppError('NOT_FOUND', `no workspace ${args.org}`);
    return { id: (await membersQueries.create(db, args.org, args)).id };
  },
  describe: (r) => `created member ${r.id}`,
});

export const memberList = defineCommand({
  name: 'member list',
  summary: 'list a workspace\'s members: id, name, email and permissions',
  options: [{ flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true }],
  examples: ['member list --org ORG', 'member list --org ORG --json'],
  parse: (values, operands) => (noOperands(operands), { org: required(values, 'org') }),
  async run(db, args) {
    if (!(await orgsQueries.getById(db, args.org))) throw new AppError('NOT_FOUND', `no workspace ${args.org}`);
    return (await membersQueries.listAll(db, args.org)).map((m) => ({ id: m.id, name: m.name, email: m.email, permissions: m.permissions }));
  },
  describe: (members) => (members.length === 0 ? 'no members' : formatMembers(members)),
});

export const memberToken = defineCommand({
  name: 'member token',
  summary: 'sign a member session for the developer endpoints (needs the service\'s SESSION_SECRET)',
  options: [{ flags: '--member <MEMBER>', description: 'the member id (mem_...; see `member list`)', required: true }],
  examples: ['member token --member MEMBER'],
  parse: (values, operands) => (noOperands(operands), { memberId: required(values, 'member') }),
  async run(db, args, { config }) {
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
});
