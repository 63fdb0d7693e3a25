import { z } from 'zod';
import { procedures } from '../../src/procedures';
import { createRegistry, type AnyProcedure } from '../../src/rpc/registry';
import { MAX_ISSUES } from '../../src/errors/app-error';
import { fieldKinds, type FieldKind } from '../../src/procedures/shared/fields';
import { issueApiKey } from '../../src/auth/api-keys';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { EVERY_PROCEDURE_SCOPE } from '../helpers/tenancy-fixtures';
import { rpcGet, rpcPost } from '../helpers/rpc';
import type { RpcIssue } from '../helpers/leads-procedures-helpers';

/**
 * Every validation message says what is expected (with an example where a format is involved).
 * Walks the input schema of every procedure of the registry, sends each field a value of the wrong
 * type, then one of the wrong format, and reads the message answered for it. A field made without
 * a field builder (src/procedures/shared/fields.ts), or of a kind this file has no probe for, fails
 * the walk: a new kind of field comes with its messages, and its probe here.
 */

/** How to get each kind of field wrong, and whether its message must show an example. */
const PROBES: Record<FieldKind, { wrongType: unknown; wrongFormat?: unknown; example: boolean }> = {
  text: { wrongType: 42, example: false },
  id: { wrongType: 42, example: true },
  email: { wrongType: 42, wrongFormat: 'ana.example.com', example: true },
  phone: { wrongType: 442079460018, wrongFormat: '12345', example: true },
  dateTime: { wrongType: 1_780_000_000, wrongFormat: '2026-12-03 10:00', example: true },
  date: { wrongType: 20301231, wrongFormat: '31/12/2030', example: true },
  currency: { wrongType: 826, wrongFormat: 'pounds', example: true },
  wholeNumber: { wrongType: '12', wrongFormat: 1.5, example: false },
  enum: { wrongType: 42, wrongFormat: 'NOT_ONE_OF_THEM', example: false },
  boolean: { wrongType: 'yes', example: false },
  list: { wrongType: 'a, b', example: false },
  timeZone: { wrongType: 60, wrongFormat: 'Mars/Olympus_Mons', example: true },
  url: { wrongType: 42, wrongFormat: 'hooks.example.com/crm', example: true },
  region: { wrongType: 44, wrongFormat: 'ZZ', example: true },
};

type Path = (string | number)[];
type Node =
  | { type: 'object'; fields: [string, Node][] }
  | { type: 'list'; item: Node }
  | { type: 'field'; kind: FieldKind }
  | { type: 'unknown' };

/** Wrappers around a field that leave what it takes as it is. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** The shape of an input schema as the walk sees it; `problems` gets every field no builder made. */
function nodeOf(schema: z.ZodType, where: string, problems: string[]): Node {
  let current = schema;
  for (;;) {
    const kind = fieldKinds.get(current)?.kind;
    if (kind === 'list') return { type: 'list', item: nodeOf(arrayElement(current), `${where}[0]`, problems) };
    if (kind) {
      if (!PROBES[kind]) problems.push(`${where}: a ${kind} field, which this walk has no probe for`);
      return { type: 'field', kind };
    }
    const def = current._zod.def as unknown as { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType> };
    if (WRAPPERS.has(def.type)) current = def.innerType!;
    else if (def.type === 'pipe') current = def.in!;
    else if (def.type === 'object') return { type: 'object', fields: Object.entries(def.shape!).map(([key, inner]) => [key, nodeOf(inner, where ? `${where}.${key}` : key, problems)]) };
    else {
      problems.push(`${where || 'the input'}: a ${def.type} made without a field builder`);
      return { type: 'unknown' };
    }
  }
}

function arrayElement(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as unknown as { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType };
  if (def.type === 'array') return def.element!;
  return arrayElement(def.type === 'pipe' ? def.in! : def.innerType!);
}

/** One wrong input, and the path of every issue it must be answered with. */
interface Probe {
  input: unknown;
  expected: { path: Path; kind: FieldKind | 'object' | 'unknown field' }[];
}

/** Each field given a value of the wrong type (a list: not a list; an object inside a list: not an object). */
function wrongTypes(root: Extract<Node, { type: 'object' }>): Probe {
  const expected: Probe['expected'] = [{ path: ['zzUnknown'], kind: 'unknown field' }];
  const input: Record<string, unknown> = { zzUnknown: 1 };
  for (const [key, node] of root.fields) {
    if (node.type === 'field') input[key] = PROBES[node.kind].wrongType;
    else if (node.type === 'list') input[key] = PROBES.list.wrongType;
    else input[key] = 'not an object';
    expected.push({ path: [key], kind: node.type === 'field' ? node.kind : node.type === 'list' ? 'list' : 'object' });
  }
  return { input, expected };
}

/** Each field given a value of the right type in the wrong format; a list one wrong item (an object item: every field wrong). */
function wrongFormats(node: Node, path: Path, expected: Probe['expected']): unknown {
  switch (node.type) {
    case 'field':
      expected.push({ path, kind: node.kind });
      return PROBES[node.kind].wrongFormat ?? PROBES[node.kind].wrongType;
    case 'list':
      return [wrongFormats(node.item, [...path, 0], expected)];
    case 'object':
      return Object.fromEntries(node.fields.map(([key, inner]) => [key, wrongFormats(inner, [...path, key], expected)]));
    default:
      return undefined;
  }
}

/** Each list given one item of the wrong type (a list of objects: one that is not an object). */
function wrongItems(root: Extract<Node, { type: 'object' }>): Probe | undefined {
  const expected: Probe['expected'] = [];
  const input: Record<string, unknown> = {};
  for (const [key, node] of root.fields) {
    if (node.type !== 'list') continue;
    const item = node.item;
    input[key] = [item.type === 'field' ? PROBES[item.kind].wrongType : 'not an object'];
    expected.push({ path: [key, 0], kind: item.type === 'field' ? item.kind : 'object' });
  }
  return expected.length > 0 ? { input, expected } : undefined;
}

/** What is wrong with a message answered for a field of `kind`, or undefined when it is clear. */
function unclear(message: string, kind: Probe['expected'][number]['kind']): string | undefined {
  if (/^(Invalid|Too (big|small)|Unrecognized)/.test(message)) return "zod's default wording";
  if (kind === 'unknown field') return /^unknown field; expected (only the fields \w|no fields$)/.test(message) ? undefined : 'does not name the fields taken';
  if (!message.startsWith('expected ')) return 'does not say what is expected';
  if (kind !== 'object' && PROBES[kind].example && !/ e\.g\. \S/.test(message)) return 'has no example';
  return undefined;
}

const everyProcedure = createRegistry(procedures.map((p): AnyProcedure => ({ ...p, exposed: true })));
const ctx = createTestContext({ registry: everyProcedure });
afterAll(() => ctx.close());

let key: string;
beforeAll(async () => {
  // A key with every scope, the app-only procedures' included (this app exposes them too).
  const ws = await createWorkspace(ctx.db);
  const scopes = [...EVERY_PROCEDURE_SCOPE];
  key = (await issueApiKey(ctx.db, EVERY_PROCEDURE_SCOPE, { orgId: ws.org.id, memberId: ws.member.id, name: 'every scope', scopes, expiresAt: null })).key;
});

function call(procedure: AnyProcedure, input: unknown) {
  return procedure.method === 'GET' ? rpcGet(ctx.app, procedure.name, input, key) : rpcPost(ctx.app, procedure.name, input, key);
}

/** Sends `probe` and lists every expected issue that is missing or unclear, as `path: why (message)`. */
async function problemsOf(procedure: AnyProcedure, probe: Probe): Promise<string[]> {
  expect(probe.expected.length).toBeLessThan(MAX_ISSUES);
  const res = await call(procedure, probe.input);
  if (res.status !== 400) return [`answered ${res.status} to ${JSON.stringify(probe.input)}`];
  const issues = res.body.error.json.data.issues as RpcIssue[];
  return probe.expected.flatMap(({ path, kind }) => {
    const issue = issues.find((i) => JSON.stringify(i.path) === JSON.stringify(path));
    if (!issue) return [`${path.join('.')}: no issue for a wrong ${kind} (answered ${JSON.stringify(issues)})`];
    const why = unclear(issue.message, kind);
    return why ? [`${path.join('.')}: ${why} (${JSON.stringify(issue.message)})`] : [];
  });
}

const cases = [...everyProcedure.values()].map((p) => [p.name, p] as const);

describe('the walk itself', () => {
  it('reports a field made without a field builder, and knows every field of the procedures', () => {
    const problems: string[] = [];
    nodeOf(z.strictObject({ raw: z.string().max(3), list: z.array(z.number()).max(2) }), '', problems);
    expect(problems).toEqual(['raw: a string made without a field builder', 'list: a array made without a field builder']);
    const all: string[] = [];
    for (const [name, procedure] of cases) nodeOf(procedure.input, '', all).type === 'object' || all.push(`${name}: its input is not an object`);
    expect(all).toEqual([]);
  });

  it('finds format fields in the registry (the probes reach them)', () => {
    const kinds = new Set<string>();
    const collect = (node: Node): void => {
      if (node.type === 'field') kinds.add(node.kind);
      if (node.type === 'list') collect(node.item);
      if (node.type === 'object') node.fields.forEach(([, inner]) => collect(inner));
    };
    for (const [, procedure] of cases) collect(nodeOf(procedure.input, '', []));
    expect([...kinds].sort()).toEqual(Object.keys(PROBES).filter((kind) => kind !== 'list').sort());
  });
});

describe.each(cases)('%s: every message says what is expected', (_name, procedure) => {
  const root = nodeOf(procedure.input, '', []) as Extract<Node, { type: 'object' }>;

  it('names the fields it takes when the input is not an object', async () => {
    expect(await problemsOf(procedure, { input: 'not an object', expected: [{ path: [], kind: 'object' }] })).toEqual([]);
  });

  it('answers every field given a value of the wrong type, and an unknown field, in one 400 saying what each expects', async () => {
    expect(await problemsOf(procedure, wrongTypes(root))).toEqual([]);
  });

  it('answers every field given a value in the wrong format in one 400, with an example for each format', async () => {
    const expected: Probe['expected'] = [];
    const input = wrongFormats(root, [], expected);
    expect(expected.length > 0 ? await problemsOf(procedure, { input, expected }) : []).toEqual([]);
  });

  it('answers a list holding an item of the wrong type for what the item expects', async () => {
    const probe = wrongItems(root);
    expect(probe ? await problemsOf(procedure, probe) : []).toEqual([]);
  });
});
