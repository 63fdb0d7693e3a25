import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';

/**
 * The package as an integrator gets it: `npm pack` (its prepack builds), installed into an empty
 * project together with superjson, tRPC and TypeScript 5 (packed from this repository's own copies,
 * so `npm install --offline` needs neither the registry nor a warm cache), type-checked as ESM
 * under `nodenext` and required from CommonJS, then run against the service.
 */
const ROOT = join(__dirname, '..', '..');

const ctx = createTestContext();
let server: Server;
let baseUrl: string;
let work: string;
let consumer: string;

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function npm(args: string[], cwd: string): Promise<string> {
  const ran = await run('npm', [...args, '--silent', '--no-audit', '--no-fund'], cwd, { npm_config_update_notifier: 'false' });
  if (ran.code !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${ran.stdout}\n${ran.stderr}`);
  return ran.stdout;
}

/** A dependency of the consumer, packed from the copy this repository runs on. */
async function packInstalled(dir: string): Promise<string> {
  return join(work, (await npm(['pack', dir, '--ignore-scripts', '--pack-destination', work], work)).trim().split('\n').pop()!);
}

const tsc = (project: string) => run(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), '-p', project], consumer);

const TSCONFIG = {
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    // esnext.disposable: @trpc/server's own types name Disposable.
    lib: ['es2022', 'dom', 'esnext.disposable'],
    // No @types/node: the package's types must stand on the platform's Web APIs alone.
    types: [],
    strict: true,
    skipLibCheck: false,
    outDir: 'out',
  },
};

/** Must compile: both clients typed by the package; Dates are Dates. Prints what it saw as JSON. */
const CONSUMER_ESM = `
import { createTRPCClient, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { constructWebhookEvent, createWorkspaceClient, WorkspaceApiError, type AppRouter, type Lead, type WorkspaceEvent } from '@workspace-api/client';

declare const process: { env: Record<string, string | undefined> };
const baseUrl = process.env.BASE_URL!;
const apiKey = process.env.API_KEY!;

const api = createWorkspaceClient({ baseUrl, apiKey, maxRetries: 1, timeoutMs: 10_000 });
const trpc = createTRPCClient<AppRouter>({
  links: [httpLink({ url: baseUrl + '/api/v1/rpc', transformer: superjson, headers: { Authorization: 'Bearer ' + apiKey } })],
});

const created: Lead = await api.leads.create({ name: 'Packed Ada', phone: '+442079460777', nextCallAt: new Date('2031-01-02T03:04:05.000Z') });
const createdAt: Date = created.createdAt;
const fetched = await trpc.leads.getById.query({ id: created.id });
const nextCallAt: Date | null = fetched.nextCallAt;
const page = await trpc.leads.getAll.query({ status: 'NOT_CONTACTED', pageSize: 10 });
const rest = await api.leads.rest.get(created.id);

let error: unknown;
try {
  await api.leads.getById({ id: 'lead_doesnotexist' });
} catch (e) {
  error = e;
}
const failure = error instanceof WorkspaceApiError ? { code: error.code, status: error.status, requestId: error.requestId, path: error.path } : String(error);

const walked: string[] = [];
for await (const lead of api.leads.listAll({ pageSize: 2 })) walked.push(lead.id);

// Typed events: the lead's creation as events.getAll answers it, then streamed by events.subscribe
// resuming after the contact.created its write recorded first.
const recorded = await api.events.getAll({ types: ['contact.created', 'lead.created'], pageSize: 10 });
const contactCreated = recorded.data.find((e) => e.type === 'contact.created' && e.data.object.id === created.contactId)!;
const listed = recorded.data.find((e): e is Extract<WorkspaceEvent, { type: 'lead.created' }> => e.type === 'lead.created' && e.data.object.id === created.id)!;
const listedObjectCreatedAt: Date = listed.data.object.createdAt;
let streamed: WorkspaceEvent | undefined;
for await (const event of api.events.subscribe({ types: ['lead.created'], lastEventId: contactCreated.id })) {
  const lead: Lead = event.data.object;
  streamed = event;
  if (lead.id === created.id) break;
}

// Compiles: a webhook handler gets the same typed event.
export async function onWebhook(rawBody: Uint8Array, signature: string | undefined, secret: string): Promise<Date | undefined> {
  const event = await constructWebhookEvent(rawBody, signature, secret);
  return event.type === 'invoice.paid' ? (event.data.object.paidAt ?? undefined) : undefined;
}

console.log(JSON.stringify({
  createdId: created.id,
  createdAtIsDate: createdAt instanceof Date,
  fetchedNextCallAt: nextCallAt instanceof Date ? nextCallAt.toISOString() : null,
  pageIds: page.data.map((lead) => lead.id),
  rest: { id: rest.lead.id, updatedAtIsDate: rest.lead.updatedAt instanceof Date, etag: rest.etag },
  failure,
  walked,
  events: {
    listedId: listed.id,
    listedObjectCreatedAtIsDate: listedObjectCreatedAt instanceof Date,
    streamedId: streamed?.id,
    streamedObjectCreatedAtIsDate: streamed?.data.object.createdAt instanceof Date,
  },
}));
`;

/** Must not compile: NEW is not a lead status (src/domain/lead-status.ts), for either client. */
const CONSUMER_WRONG = `
import { createTRPCClient, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { createWorkspaceClient, type AppRouter } from '@workspace-api/client';

const api = createWorkspaceClient({ baseUrl: 'http://localhost', apiKey: 'wsk_x' });
const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: 'http://localhost/api/v1/rpc', transformer: superjson })] });

export const viaTrpc = trpc.leads.getAll.query({ status: 'NEW' });
export const viaClient = api.leads.getAll({ status: 'NEW' });
`;

/** CommonJS: \`require\` resolves the package's require condition (dist/cjs and its types). */
const CONSUMER_CJS = `
import { createWorkspaceClient, WorkspaceApiError, procedureMethods } from '@workspace-api/client';

declare const process: { env: Record<string, string | undefined> };
declare const require: { resolve(name: string): string };

async function main() {
  const api = createWorkspaceClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY! });
  const lead = await api.leads.getById({ id: process.env.LEAD_ID! });
  const updatedAt: Date = lead.updatedAt;
  console.log(JSON.stringify({
    resolved: require.resolve('@workspace-api/client'),
    updatedAtIsDate: updatedAt instanceof Date,
    errorClass: typeof WorkspaceApiError,
    methods: Object.keys(procedureMethods).length,
  }));
}
void main();
`;

beforeAll(async () => {
  server = ctx.app.listen(0);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  work = mkdtempSync(join(tmpdir(), 'client-package-'));
  consumer = join(work, 'consumer');
  mkdirSync(join(consumer, 'src'), { recursive: true });
  const [tarball, ...dependencies] = await Promise.all([
    npm(['pack', '-w', '@workspace-api/client', '--pack-destination', work], ROOT).then((out) => join(work, out.trim().split('\n').pop()!)),
    ...['node_modules/superjson', 'node_modules/copy-anything', 'node_modules/@trpc/client', 'node_modules/@trpc/server', 'packages/client/node_modules/typescript'].map((dir) =>
      packInstalled(join(ROOT, dir)),
    ),
  ]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await npm(['install', '--offline', '--ignore-scripts', tarball!, ...dependencies], consumer);
  writeFileSync(join(consumer, 'src/consumer.ts'), CONSUMER_ESM);
  writeFileSync(join(consumer, 'src/consumer-cjs.cts'), CONSUMER_CJS);
  writeFileSync(join(consumer, 'src/wrong.ts'), CONSUMER_WRONG);
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['src/consumer.ts', 'src/consumer-cjs.cts'] }));
  writeFileSync(join(consumer, 'tsconfig.wrong.json'), JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, noEmit: true }, include: ['src/wrong.ts'] }));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  await ctx.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed @workspace-api/client', () => {
  it('ships only dist, with its ESM and CommonJS trees stamped with their module type', async () => {
    const list = await run('tar', ['-tzf', join(work, 'workspace-api-client-0.1.0.tgz')], work);
    const files = list.stdout.trim().split('\n').sort();

    expect(files.filter((f) => !f.startsWith('package/dist/'))).toEqual(['package/README.md', 'package/package.json']);
    expect(files).toEqual(expect.arrayContaining(['package/dist/esm/package.json', 'package/dist/esm/index.d.ts', 'package/dist/cjs/package.json', 'package/dist/cjs/index.d.ts']));
  });

  it('type-checks an ESM consumer (nodenext) and a CommonJS one with TypeScript 5', async () => {
    const checked = await tsc('tsconfig.json');

    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });

  it('refuses a lead status that does not exist, through either client', async () => {
    const checked = await tsc('tsconfig.wrong.json');

    const errors = checked.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toEqual([
      expect.stringMatching(/^src\/wrong\.ts\(9,\d+\): error TS2322: Type '"NEW"' is not assignable/),
      expect.stringMatching(/^src\/wrong\.ts\(10,\d+\): error TS2322: Type '"NEW"' is not assignable/),
    ]);
  });

  it('runs against the service: Dates revived, errors with code, status and request id, the REST walk', async () => {
    const ws = await createWorkspace(ctx.db);
    const existing = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-01T00:00:00.000Z') });
    await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-02T00:00:00.000Z') });

    const ran = await run(process.execPath, ['out/consumer.js'], consumer, { BASE_URL: baseUrl, API_KEY: ws.key });

    expect(ran.stderr).toBe('');
    const seen = JSON.parse(ran.stdout) as Record<string, unknown> & { createdId: string; walked: string[] };
    expect(seen).toMatchObject({
      createdAtIsDate: true,
      fetchedNextCallAt: '2031-01-02T03:04:05.000Z',
      rest: { id: seen.createdId, updatedAtIsDate: true, etag: expect.stringMatching(/"/) },
      failure: { code: 'NOT_FOUND', status: 404, requestId: expect.stringMatching(/\S/), path: 'leads.getById' },
    });
    expect(seen.events).toEqual({ listedId: expect.stringMatching(/^evt_/), listedObjectCreatedAtIsDate: true, streamedId: (seen.events as { listedId: string }).listedId, streamedObjectCreatedAtIsDate: true });
    expect(seen.pageIds).toContain(seen.createdId);
    expect(seen.walked).toEqual(expect.arrayContaining([existing.id, seen.createdId]));
    expect(new Set(seen.walked).size).toBe(3);
    expect(seen.walked).toHaveLength(3);
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: seen.createdId }).first()).toMatchObject({ next_call_at: new Date('2031-01-02T03:04:05.000Z') });

    const cjs = await run(process.execPath, ['out/consumer-cjs.cjs'], consumer, { BASE_URL: baseUrl, API_KEY: ws.key, LEAD_ID: existing.id });

    expect(JSON.parse(cjs.stdout)).toEqual({
      resolved: join(consumer, 'node_modules/@workspace-api/client/dist/cjs/index.js'),
      updatedAtIsDate: true,
      errorClass: 'function',
      methods: expect.any(Number),
    });
  });
});
