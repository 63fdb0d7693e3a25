import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg, unique } from '../helpers/factories';
import * as orgsQueries from '../../src/db/orgs';
import * as membersQueries from '../../src/db/members';
import { cli, cliJson } from '../helpers/cli-harness';

const ctx = createTestContext();
afterAll(() => ctx.close());

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b/;
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A workspace with two members, and keys: one usable, one revoked, one expired. */
async function populatedWorkspace() {
  const org = await createOrg(ctx.db, { tier: 'PRO', features: ['DEVELOPER_API', 'BETA'], region: 'US' });
  const members = [await createMember(ctx.db, org.id, ['DEVELOPER', 'ADMIN']), await createMember(ctx.db, org.id)];
  await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
  const revoked = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
  await ctx.db('api_keys').where({ org_id: org.id, id: revoked.id }).update({ revoked_at: new Date() });
  await createKey(ctx.db, org.id, { scopes: ['leads.read'], expiresAt: new Date('2020-01-01T00:00:00Z') });
  // Another workspace's member and key, which nothing of this one may show.
  const other = await createOrg(ctx.db);
  const stranger = await createMember(ctx.db, other.id);
  await createKey(ctx.db, other.id);
  return { org, members, other, stranger };
}

describe('cli org list', () => {
  it('lists every workspace with id, name, tier, region and member count as JSON', async () => {
    const { org, other } = await populatedWorkspace();
    const empty = await createOrg(ctx.db, { tier: 'FREE' });

    const output = await cliJson<Record<string, unknown>[]>('org', 'list');

    const byId = new Map(output.map((o) => [o.id, o]));
    expect(byId.get(org.id)).toEqual({ id: org.id, name: org.name, tier: 'PRO', region: 'US', memberCount: 2 });
    expect(byId.get(other.id)).toEqual({ id: other.id, name: other.name, tier: 'BUSINESS', region: 'GB', memberCount: 1 });
    expect(byId.get(empty.id)).toEqual({ id: empty.id, name: empty.name, tier: 'FREE', region: 'GB', memberCount: 0 });
  });

  it('prints an aligned table under a header without --json', async () => {
    const { org } = await populatedWorkspace();

    const run = await cli('org', 'list');

    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    const [header, ...rows] = run.out.trimEnd().split('\n');
    expect(header).toMatch(/^ID +NAME +TIER +REGION +MEMBERS$/);
    const row = rows.find((line) => line.startsWith(`${org.id} `))!;
    expect(row.split(/ {2,}/)).toEqual([org.id, org.name, 'PRO', 'US', '2']);
    for (const column of ['NAME', 'TIER', 'REGION', 'MEMBERS']) {
      const at = header!.indexOf(column);
      expect(row[at - 1]).toBe(' ');
      expect(row[at]).not.toBe(' ');
    }
  });
});

describe('cli org show', () => {
  it('prints the workspace, its own members and its key counts as JSON', async () => {
    const { org, members } = await populatedWorkspace();

    const output = await cliJson('org', 'show', org.id);

    expect(output).toEqual({
      id: org.id, name: org.name, tier: 'PRO', features: ['DEVELOPER_API', 'BETA'], region: 'US', createdAt: org.createdAt.toISOString(),
      members: [...members].sort(byName).map((m) => ({ id: m.id, name: m.name, email: m.email, permissions: m.permissions })),
      apiKeys: { total: 3, active: 1 },
    });
  });

  it('prints the settings as aligned fields and the members as a table without --json', async () => {
    const { org, members, stranger } = await populatedWorkspace();

    const run = await cli('org', 'show', org.id);

    expect(run.code).toBe(0);
    expect(run.out).toContain(`id        ${org.id}\nname      ${org.name}\ntier      PRO\nfeatures  DEVELOPER_API, BETA\nregion    US\n`);
    expect(run.out).toContain(`created   ${org.createdAt.toISOString()}\napi keys  3 (1 active)\n\nmembers (2):\nID `);
    expect(run.out).toMatch(new RegExp(`\\n${members[0]!.id} +${members[0]!.name} +${members[0]!.email} +DEVELOPER,ADMIN\\n`));
    expect(run.out).not.toContain(stranger.id);
  });

  it('exits 1 naming the id when no workspace has it', async () => {
    expect(await cli('org', 'show', 'org_nosuchworkspace', '--json')).toEqual({ code: 1, out: '', err: 'no workspace org_nosuchworkspace\n' });
  });

  it('exits 2 without an id, or with two', async () => {
    const none = await cli('org', 'show');
    const two = await cli('org', 'show', 'org_a', 'org_b');

    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^give exactly one ORG\n/);
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/^give exactly one ORG\n/);
  });
});

describe('cli member list', () => {
  it('lists the workspace\'s members by name as JSON, never another workspace\'s', async () => {
    const { org, members, stranger } = await populatedWorkspace();

    const output = await cliJson('member', 'list', '--org', org.id);

    expect(output).toEqual([...members].sort(byName).map((m) => ({ id: m.id, name: m.name, email: m.email, permissions: m.permissions })));
    expect(JSON.stringify(output)).not.toContain(stranger.id);
  });

  it('prints a table without --json, "-" for no permissions, and "no members" for a workspace without any', async () => {
    const { org, members } = await populatedWorkspace();
    const empty = await createOrg(ctx.db);

    const run = await cli('member', 'list', '--org', org.id);

    expect(run.code).toBe(0);
    const [header, ...rows] = run.out.trimEnd().split('\n');
    expect(header).toMatch(/^ID +NAME +EMAIL +PERMISSIONS$/);
    expect(rows.map((row) => row.split(/ {2,}/)).sort()).toEqual(
      [[members[0]!.id, members[0]!.name, members[0]!.email, 'DEVELOPER,ADMIN'], [members[1]!.id, members[1]!.name, members[1]!.email, '-']].sort(),
    );
    expect(await cli('member', 'list', '--org', empty.id)).toEqual({ code: 0, out: 'no members\n', err: '' });
    expect(await cliJson('member', 'list', '--org', empty.id)).toEqual([]);
  });

  it('exits 1 naming an unknown workspace, and 2 without --org', async () => {
    expect(await cli('member', 'list', '--org', 'org_nosuchworkspace')).toEqual({ code: 1, out: '', err: 'no workspace org_nosuchworkspace\n' });
    const missing = await cli('member', 'list');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^missing --org\n/);
  });
});

describe('cli tables and stored text', () => {
  it('shows control characters in stored names escaped, so no name can colour the terminal or split a row; --json keeps them exact', async () => {
    const name = `${unique('Evil')}\u001b[31mRed\nNext`;
    const org = await orgsQueries.create(ctx.db, { name, tier: 'PRO' });
    await membersQueries.create(ctx.db, org.id, { name: `Bell\u0007${unique('m')}`, email: `${unique('bell')}@example.com` });

    const show = await cli('org', 'show', org.id);
    const members = await cli('member', 'list', '--org', org.id);
    const list = await cli('org', 'list');

    for (const run of [show, members, list]) {
      expect(run.code).toBe(0);
      expect(run.out).not.toMatch(ANSI);
      expect(run.out).not.toContain('\u0007');
    }
    expect(show.out).toContain('\\u001b[31mRed\\u000aNext');
    expect(list.out).toContain(`${org.id}  ${name.replace('\u001b', '\\u001b').replace('\n', '\\u000a')}`);
    expect((await cliJson('org', 'show', org.id)).name).toBe(name);
  });
});
