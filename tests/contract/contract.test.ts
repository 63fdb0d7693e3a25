import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createTestContext } from '../helpers/test-app';
import { createFullWorkspace } from '../helpers/tenancy-fixtures';
import { buildOpenApiDocument, OPENAPI_PATH } from '../../src/openapi/document';
import { createProcedureRegistry, createSubscriptionRegistry } from '../../src/procedures';
import { createArbitraries, GeneratorProblem } from './arbitraries';
import { onlyInexpressible } from './inexpressible-rules';
import { createValidators, type OpenApiDocument, type Validators } from './schema';
import {
  conformanceProblems, describeExchange, harvestIds, NO_INPUT_ENVELOPES, operationsOf, optionalInputEnvelopes, requestArbitraries, send, toWire,
  type GeneratedRequest, type Operation, type WireRequest, type WireResponse,
} from './operations';

/**
 * The service against its own OpenAPI document, as Schemathesis would test it: for every
 * operation, requests drawn from the document's schemas (valid ones and ones with one thing
 * wrong) go to the real service on the run's PostgreSQL, and every answer must be documented
 * (status, Content-Type, required headers, body schema). Valid input must not be refused: a
 * documented-valid request answered 400 is a finding, unless every issue of the 400 is a rule the
 * document can only say in words (inexpressible-rules.ts). CONTRACT_SEED replays a run.
 */
const SEED = Number(process.env.CONTRACT_SEED ?? 20250601);
const POSITIVE_RUNS = 15;
const NEGATIVE_RUNS = 10;
/**
 * Time bounds, as safeguards (a normal run takes a fraction of them, so the numbers of runs are
 * the seed's alone): a property stops after PROPERTY_LIMIT_MS, and once the file has spent
 * BUDGET_MS every later property gets only a short while.
 */
const PROPERTY_LIMIT_MS = 3_000;
const BUDGET_MS = 40_000;
const LATE_PROPERTY_MS = 250;
/** Answers valid input may get besides 2xx, when the operation documents them (absent ids, state). */
const ACCEPTABLE_REFUSALS = new Set([404, 409, 412, 422]);
/** Answers invalid input may get besides 400, when documented (a body too large, not JSON). */
const NEGATIVE_STATUSES = new Set([400, 413, 415]);

// Test names come from the document as this code builds it; requests use the one the service serves.
/**
 * Left out, in words: the import routes take a file (text/csv, application/x-ndjson) whose rules
 * (a header row naming known columns, one input a line) the document can only say in prose, so
 * every generated body is refused; their bad input and answers are tested through HTTP in
 * tests/integration/imports-upload.test.ts and imports-procedures.test.ts.
 */
const NOT_GENERATED = new Set(['POST /api/v1/imports', 'GET /api/v1/imports/{id}', 'GET /api/v1/imports/{id}/errors']);
const generated = (op: { label: string }) => !NOT_GENERATED.has(op.label);
const labels = operationsOf(buildOpenApiDocument(createProcedureRegistry(), createSubscriptionRegistry()) as unknown as OpenApiDocument).filter(generated).map((op) => op.label);
const startedAt = Date.now();
const propertyMs = () => (Date.now() - startedAt > BUDGET_MS ? LATE_PROPERTY_MS : PROPERTY_LIMIT_MS);

const ctx = createTestContext();
let server: Server;
let port: number;
let doc: OpenApiDocument;
let validators: Validators;
let authorization: string;
const realIds = new Set<string>();
const generatorProblems = new Set<string>();

interface Stats { positive: number; accepted: number; inexpressible: number; refused: number; negative: number; malformed: number }
const stats = new Map<string, Stats>();

beforeAll(async () => {
  server = createServer(ctx.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const served = await send(port, { method: 'GET', url: OPENAPI_PATH, headers: {} });
  if (served.status !== 200) throw new Error(`GET ${OPENAPI_PATH} answered ${served.status}`);
  doc = JSON.parse(served.text);
  validators = createValidators(doc);
  // A maximum-tier workspace, a key with every scope and one record of each kind, made through the API.
  const ws = await createFullWorkspace(ctx.app, ctx.db, 'contract', '+442079460031');
  authorization = `Bearer ${ws.key}`;
  for (const id of [ws.memberId, ws.contactId, ws.clientId, ws.leadId, ws.callId, ws.taskId, ws.invoiceId, ws.webhookId]) realIds.add(id);
}, 60_000);

afterAll(async () => {
  const rows = [...stats].map(([label, s]) =>
    `${label.padEnd(48)} valid ${String(s.positive).padStart(3)} (2xx ${String(s.accepted).padStart(3)}, 400 by an inexpressible rule ${String(s.inexpressible).padStart(2)}, refused ${String(s.refused).padStart(3)} = ${s.positive ? Math.round((100 * s.refused) / s.positive) : 0}%)  invalid ${String(s.negative).padStart(3)} (malformed envelopes ${s.malformed})`);
  if (rows.length > 0) console.log(`contract run, CONTRACT_SEED=${SEED}\n${rows.join('\n')}`);
  await new Promise((resolve) => server?.close(resolve));
  await ctx.close();
});

/** A different stream of values per operation, all from the one seed. */
function seedFor(label: string): number {
  let hash = SEED | 0;
  for (const ch of label) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return hash;
}

function failure(label: string, what: string, req: WireRequest, res: WireResponse): Error {
  return new Error(`${label}: ${what}\n${describeExchange(req, res)}\n(CONTRACT_SEED=${SEED})`);
}

async function exchange(op: Operation, generated: GeneratedRequest): Promise<[WireRequest, WireResponse]> {
  const req = toWire(op, generated, authorization);
  const res = await send(port, req);
  if (res.status < 300) harvestIds(res.text, realIds);
  return [req, res];
}

test('the served document lists the operations this file tests', () => {
  expect(operationsOf(doc).filter(generated).map((op) => op.label).sort()).toEqual([...labels].sort());
});

describe.each(labels)('%s', (label) => {
  test('answers as documented, takes valid input and refuses invalid input with 400', async () => {
    const op = operationsOf(doc).find((o) => o.label === label);
    if (!op) throw new Error(`${label} is not in the served document`);
    const documented = new Set(Object.keys(op.operation.responses ?? {}).map(Number));
    const s: Stats = { positive: 0, accepted: 0, inexpressible: 0, refused: 0, negative: 0, malformed: 0 };
    stats.set(label, s);
    let arbitraries: ReturnType<typeof requestArbitraries>;
    try {
      const arbs = createArbitraries({ doc, validators, realIds: () => [...realIds], problems: generatorProblems });
      arbitraries = requestArbitraries(doc, op, arbs, validators);
    } catch (e) {
      if (e instanceof GeneratorProblem) throw new Error(`${label}: the document keeps a generator from drawing valid input: ${e.message}`);
      throw e;
    }
    const options = { seed: seedFor(label), markInterruptAsFailure: false };

    const refusals: string[] = [];
    await fc.assert(
      fc.asyncProperty(arbitraries.positive, async (generated) => {
        // A draw the generator got wrong is skipped (too many skips fail the run, naming the seed).
        fc.pre(arbitraries.isValid(generated));
        const [req, res] = await exchange(op, generated);
        s.positive++;
        const problems = conformanceProblems(doc, op, res, validators);
        if (res.status >= 500) problems.unshift('a server error on valid input');
        if (problems.length > 0) throw failure(label, problems.join('\n'), req, res);
        if (res.status < 300) s.accepted++;
        else if (res.status === 400 && onlyInexpressible(op.operation.operationId ?? '', res.text)) s.inexpressible++;
        else if (!ACCEPTABLE_REFUSALS.has(res.status)) {
          s.refused++;
          if (refusals.length < 3) refusals.push(describeExchange(req, res));
        }
      }),
      { ...options, interruptAfterTimeLimit: propertyMs(), numRuns: POSITIVE_RUNS },
    );

    if (arbitraries.negative) {
      await fc.assert(
        fc.asyncProperty(arbitraries.negative, async (generated) => {
          const [req, res] = await exchange(op, generated);
          s.negative++;
          if (generated.strictly400) s.malformed++;
          const problems = conformanceProblems(doc, op, res, validators);
          // A malformed envelope (fixed, not drawn) is a 400 and nothing else.
          const expected = res.status === 400 || (!generated.strictly400 && NEGATIVE_STATUSES.has(res.status) && documented.has(res.status));
          if (!expected) problems.unshift(`invalid input${generated.strictly400 ? ` (${generated.strictly400})` : ''} answered ${res.status}, not 400`);
          if (problems.length > 0) throw failure(label, problems.join('\n'), req, res);
        }),
        { ...options, interruptAfterTimeLimit: propertyMs(), numRuns: NEGATIVE_RUNS },
      );
    }

    if (s.refused > 0) {
      throw new Error(
        `${label}: refused ${s.refused} of ${s.positive} requests the document calls valid (positive data acceptance); for example:\n` +
          `${refusals.join('\n---\n')}\n(CONTRACT_SEED=${SEED})`,
      );
    }
  });
});

test('every example in the document is valid against its own schema', () => {
  expect([...generatorProblems]).toEqual([]);
});

test('the document takes the envelope the official client sends for a call with no input', () => {
  // superjson.serialize(undefined), as @trpc/client sends it for `query('leads.getAll')`.
  const [clientForm] = NO_INPUT_ENVELOPES;
  const refused = optionalInputEnvelopes(doc, operationsOf(doc)).flatMap(({ label, schema }) => {
    const errors = validators.errorsOf(schema, clientForm);
    return errors.length > 0 ? [`${label}: ${JSON.stringify(clientForm)} ${errors.join('; ')}`] : [];
  });
  expect(refused).toEqual([]);
});
