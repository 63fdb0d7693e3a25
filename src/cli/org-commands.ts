import { z } from 'zod';
import * as orgsQueries from '../db/orgs';
import * as membersQueries from '../db/members';
import { AppError } from '../errors/app-error';
import { defineCommand, list, noOperands, oneOperand, optional, required, UsageError } from './command';
import { formatFields, formatTable } from './table';

const tier = z.enum(['FREE', 'PRO', 'BUSINESS']);

export const orgCreate = defineCommand({
  name: 'org create',
  summary: 'create a workspace',
  options: [
    { flags: '--name <NAME>', description: 'the workspace name', required: true },
    { flags: '--tier <TIER>', description: 'FREE, PRO or BUSINESS (the developer endpoints need BUSINESS)', required: true },
    { flags: '--features <LIST>', description: 'comma-separated feature flags, e.g. DEVELOPER_API (default: none)' },
    { flags: '--region <CC>', description: 'two-letter country code phones are read in (default: GB)' },
  ],
  examples: ['org create --name "Acme Ltd" --tier BUSINESS --features DEVELOPER_API', 'org create --name Demo --tier FREE --region US --json'],
  parse(values, operands) {
    noOperands(operands);
    const parsedTier = tier.safeParse(required(values, 'tier'));
    if (!parsedTier.success) throw new UsageError('--tier must be FREE, PRO or BUSINESS');
    const region = (optional(values, 'region') ?? 'GB').toUpperCase();
    if (!/^[A-Z]{2}$/.test(region)) throw new UsageError('--region must be a two-letter country code, e.g. GB');
    return { name: required(values, 'name'), tier: parsedTier.data, features: list(optional(values, 'features')), phoneRegion: region };
  },
  run: async (db, args) => ({ id: (await orgsQueries.create(db, args)).id }),
  describe: (r) => `created workspace ${r.id}`,
});

export const orgList = defineCommand({
  name: 'org list',
  summary: 'list every workspace: id, name, tier, region and member count',
  options: [],
  examples: ['org list', 'org list --json'],
  parse: (_values, operands) => noOperands(operands),
  run: async (db) =>
    (await orgsQueries.listWithMemberCounts(db)).map((o) => ({ id: o.id, name: o.name, tier: o.tier, region: o.phoneRegion, memberCount: o.memberCount })),
  describe: (orgs) =>
    orgs.length === 0
      ? 'no workspaces (create one with: workspace-api org create --name NAME --tier PRO)'
      : formatTable(['ID', 'NAME', 'TIER', 'REGION', 'MEMBERS'], orgs.map((o) => [o.id, o.name, o.tier, o.region, String(o.memberCount)])),
});

export const orgShow = defineCommand({
  name: 'org show',
  summary: 'show a workspace: its settings, its members and how many API keys it has',
  operand: { name: 'ORG', description: 'the workspace id (org_...; see `org list`)' },
  options: [],
  examples: ['org show ORG', 'org show ORG --json'],
  parse: (_values, operands) => ({ orgId: oneOperand(operands, 'ORG') }),
  async run(db, args) {
    const org = await orgsQueries.getWithKeyCounts(db, args.orgId);
    if (!org) throw new AppError('NOT_FOUND', `no workspace ${args.orgId}`);
    const members = await membersQueries.listAll(db, org.id);
    return {
      id: org.id, name: org.name, tier: org.tier, features: org.features, region: org.phoneRegion, createdAt: org.createdAt,
      members: members.map((m) => ({ id: m.id, name: m.name, email: m.email, permissions: m.permissions })),
      apiKeys: org.apiKeys,
    };
  },
  describe: (org) =>
    [
      formatFields([
        ['id', org.id],
        ['name', org.name],
        ['tier', org.tier],
        ['features', org.features.join(', ') || 'none'],
        ['region', org.region],
        ['created', org.createdAt.toISOString()],
        ['api keys', `${org.apiKeys.total} (${org.apiKeys.active} active)`],
      ]),
      '',
      org.members.length === 0 ? 'no members' : `members (${org.members.length}):\n${formatMembers(org.members)}`,
    ].join('\n'),
});

export function formatMembers(members: { id: string; name: string; email: string; permissions: string[] }[]): string {
  return formatTable(['ID', 'NAME', 'EMAIL', 'PERMISSIONS'], members.map((m) => [m.id, m.name, m.email, m.permissions.join(',') || '-']));
}
