import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createOrg, unique } from '../helpers/factories';
import { rpcGet, errorOf, resultOf } from '../helpers/rpc';
import { cli, cliJson } from '../helpers/cli-harness';
import { acrossWorkspaces } from '../helpers/across-workspaces';

const ctx = createTestContext({ keyCacheTtlMs: 0 });
afterAll(() => ctx.close());

const USAGE_LINE = /usage: workspace-api <command> \[options\] \[--json\]/;
// A mistake within a command is followed by that command's usage, not the list of every command.
const ORG_CREATE_USAGE_LINE = /\n\nusage: workspace-api org create --name NAME --tier TIER \[--features LIST\] \[--region CC\] \[--json\]\nRun `workspace-api org create --help`/;

describe('cli migrate', () => {
  it('prints {"applied":[]} and exits 0 when the schema is already current', async () => {
    const run = await cli('migrate', '--json');

    expect(run).toEqual({ code: 0, out: '{"applied":[]}\n', err: '' });
  });

  it('says the schema is up to date without --json', async () => {
    expect(await cli('migrate')).toEqual({ code: 0, out: 'schema is up to date\n', err: '' });
  });
});

describe('cli org create', () => {
  it('prints {id} and stores the tier, features and phone region', async () => {
    const name = unique('Cli Org');

    const output = await cliJson('org', 'create', '--name', name, '--tier', 'BUSINESS', '--features', 'DEVELOPER_API', '--region', 'US');

    expect(Object.keys(output)).toEqual(['id']);
    expect(output.id).toMatch(/^org_[0-9A-Za-z]{22}$/);
    const row = await ctx.db('organisations').where({ id: output.id }).first();
    expect(row).toMatchObject({ name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phone_region: 'US' });
  });

  it('defaults to no features and the GB region, and upper-cases a given region', async () => {
    const plain = await cliJson('org', 'create', '--name', unique('Plain'), '--tier', 'FREE');
    const lower = await cliJson('org', 'create', '--name', unique('Lower'), '--tier', 'PRO', '--region', 'us', '--features', 'A, B');

    expect(await ctx.db('organisations').where({ id: plain.id }).first()).toMatchObject({ tier: 'FREE', features: [], phone_region: 'GB' });
    expect(await ctx.db('organisations').where({ id: lower.id }).first()).toMatchObject({ tier: 'PRO', features: ['A', 'B'], phone_region: 'US' });
  });

  it('prints a readable line without --json', async () => {
    const run = await cli('org', 'create', '--name', unique('Readable'), '--tier', 'PRO');

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^created workspace org_[0-9A-Za-z]{22}\n$/);
  });

  it('exits 2 naming --tier when it is missing, and creates nothing', async () => {
    const name = unique('NoTier');

    const run = await cli('org', 'create', '--name', name, '--json');

    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^missing --tier\n/);
    expect(run.err).toMatch(ORG_CREATE_USAGE_LINE);
    // Which workspace has that name is a question across workspaces.
    expect(await acrossWorkspaces(ctx.db, (trx) => trx('organisations').where({ name }))).toEqual([]);
  });

  it('exits 2 for --tier GOLD, listing the tiers', async () => {
    const run = await cli('org', 'create', '--name', unique('Gold'), '--tier', 'GOLD', '--json');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^--tier must be FREE, PRO or BUSINESS\n/);
  });

  it('exits 2 for a region that is not a two-letter code', async () => {
    const run = await cli('org', 'create', '--name', unique('Region'), '--tier', 'PRO', '--region', 'Britain');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^--region must be a two-letter country code/);
  });
});

describe('cli member create', () => {
  it('prints {id} and stores the member with the email lowercased and the permissions', async () => {
    const org = await createOrg(ctx.db);
    const local = unique('Ana.Smith');

    const output = await cliJson('member', 'create', '--org', org.id, '--name', 'Ana Smith', '--email', `${local}@Example.COM`, '--permissions', 'DEVELOPER,ADMIN');

    expect(Object.keys(output)).toEqual(['id']);
    expect(output.id).toMatch(/^mem_/);
    const row = await ctx.db('org_members').where({ org_id: org.id, id: output.id }).first();
    expect(row).toMatchObject({ name: 'Ana Smith', email: `${local.toLowerCase()}@example.com`, permissions: ['DEVELOPER', 'ADMIN'] });
  });

  it('exits 1 naming the workspace when the org does not exist', async () => {
    const run = await cli('member', 'create', '--org', 'org_nosuchworkspace', '--name', 'N', '--email', 'n@example.com', '--json');

    expect(run).toEqual({ code: 1, out: '', err: 'no workspace org_nosuchworkspace\n' });
  });

  it('exits 2 for an email that is not an address', async () => {
    const org = await createOrg(ctx.db);

    const run = await cli('member', 'create', '--org', org.id, '--name', 'N', '--email', 'not-an-email');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^--email must be an email address\n/);
    expect(await ctx.db('org_members').where({ org_id: org.id })).toEqual([]);
  });
});

describe('cli usage errors', () => {
  it('exits 2 with the usage for an unknown command', async () => {
    const run = await cli('frobnicate', 'things', '--json');

    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^unknown command: frobnicate things\n/);
    expect(run.err).toMatch(USAGE_LINE);
  });

  it('exits 2 naming an unknown flag', async () => {
    const run = await cli('org', 'create', '--name', 'X', '--tier', 'PRO', '--colour', 'blue');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^unknown option '--colour'\n/);
    expect(run.err).toMatch(ORG_CREATE_USAGE_LINE);
  });

  it('exits 2 with the usage when no command is given, and 0 with it on --help', async () => {
    const none = await cli();
    const help = await cli('--help');

    expect(none.code).toBe(2);
    expect(none.err).toMatch(USAGE_LINE);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(USAGE_LINE);
    expect(help.out).toMatch(/key revoke KEY_ID/);
  });
});

describe('cli seed demo', () => {
  it('prints the demo workspaces and keys: the demo key lists 300 leads, the lower-tier key is refused by the action endpoints', async () => {
    const output = await cliJson('seed', 'demo');

    expect(Object.keys(output).sort()).toEqual(['key', 'lowerTierKey', 'lowerTierOrgId', 'orgId']);
    expect(output.key).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(output.lowerTierKey).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(await ctx.db('organisations').where({ id: output.orgId }).first()).toMatchObject({ tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    expect(await ctx.db('organisations').where({ id: output.lowerTierOrgId }).first()).toMatchObject({ tier: 'FREE' });

    const list = await request(ctx.app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${output.key}`);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 1, pageSize: 1, total: 300, totalPages: 300, hasNextPage: true, hasPrevPage: false, nextCursor: expect.any(String) });

    const statuses = await ctx.db('leads').where({ org_id: output.orgId }).distinct('status');
    expect(statuses).toHaveLength(10);

    const action = await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, output.key);
    expect(action.status).toBe(200);
    expect(resultOf(action).pagination.total).toBe(300);

    const refused = await rpcGet(ctx.app, 'leads.getAll', undefined, output.lowerTierKey);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    expect(errorOf(refused).message).toMatch(/needs the BUSINESS tier .*; this workspace is on FREE$/);
  });
});

describe('the workspace-api binary', () => {
  it('runs `tsx src/cli/main.ts org create --json` as a separate process: exit 0 and the JSON on stdout', async () => {
    const name = unique('Binary Org');
    const run = promisify(execFile);

    const { stdout } = await run('npx', ['tsx', 'src/cli/main.ts', 'org', 'create', '--name', name, '--tier', 'PRO', '--json'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, DATABASE_URL: testDatabaseUrl() },
      timeout: 60_000,
    });

    const output = JSON.parse(stdout) as { id: string };
    expect(Object.keys(output)).toEqual(['id']);
    expect(await ctx.db('organisations').where({ id: output.id }).first()).toMatchObject({ name, tier: 'PRO' });
  }, 90_000);

  it('exits 2 as a separate process on bad usage', async () => {
    const run = promisify(execFile);

    const failure = await run('npx', ['tsx', 'src/cli/main.ts', 'org', 'create', '--name', 'X', '--tier', 'GOLD'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, DATABASE_URL: testDatabaseUrl() },
      timeout: 60_000,
    }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );

    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/--tier must be FREE, PRO or BUSINESS/);
  }, 90_000);
});
