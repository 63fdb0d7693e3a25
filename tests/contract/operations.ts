import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import superjson from 'superjson';
import { bounded, GeneratorProblem, type createArbitraries } from './arbitraries';
import { deref, envelopeOf, typesOf, flatten, type OpenApiDocument, type Schema, type Validators } from './schema';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface Operation {
  /** `GET /api/v1/rpc/leads.getAll`: names the jest test. */
  label: string;
  method: string;
  path: string;
  operation: Schema;
  parameters: Schema[];
}

/** Whether an operation answers a stream that stays open (a subscription): no request/answer exchange to test here. */
const streams = (operation: Schema) => Object.values((operation.responses ?? {}) as Record<string, Schema>).some((r) => r.content?.['text/event-stream']);

/**
 * Every path × method of the document; reads first and deletions last (writes change the data).
 * Subscriptions are left out: their answer never ends (tests/integration/client-subscribe.test.ts
 * and the subscription route's tests drive them).
 */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = ((item.parameters ?? []) as unknown[]).map((p) => deref(doc, p));
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      const operation = item[method] as Schema;
      if (streams(operation)) continue;
      const own = ((operation.parameters ?? []) as unknown[]).map((p) => deref(doc, p));
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      out.push({ label: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, operation, parameters });
    }
  }
  const rank = (op: Operation) => (op.method === 'GET' || op.method === 'HEAD' ? 0 : op.method === 'DELETE' || /delete/i.test(op.operation.operationId ?? '') ? 2 : 1);
  return out.sort((a, b) => rank(a) - rank(b));
}

/** A request as generated: parameters by location (raw values), and the body. */
export interface GeneratedRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: { mediaType: string; value: unknown };
  /** A malformed envelope (fixed, not drawn from a schema): only a 400 will do. */
  strictly400?: string;
}

/** A JSON parameter or body sent as this very text (not JSON at all, say), not as `JSON.stringify` writes a value. */
export class RawText {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `<raw ${this.text}>`;
  }
}

/**
 * How the official tRPC client (`transformer: superjson`) writes an input: `superjson.serialize`,
 * `{json}` or `{json, meta}` when it holds Dates. Paths are where `input` holds date-time strings;
 * `asDates[i]` says whether the i-th of them is sent as a Date (a Date in the client's hands).
 */
export function superjsonEnvelope(input: unknown, paths: (string | number)[][], asDates: boolean[]): unknown {
  let value = input;
  paths.forEach((path, i) => {
    if (asDates[i % asDates.length]) value = replaceAt(value, path, (text) => new Date(text as string));
  });
  // JSON as the client sends it: no `undefined` member left (`{"meta":...}` alone for an input left out).
  return JSON.parse(JSON.stringify(superjson.serialize(value as never)));
}

/**
 * A call with no input: what superjson 2 writes for `undefined` (`{"json":null,"meta":{"values":["undefined"],"v":1}}`,
 * what the official client sends: tests/integration/trpc-client.test.ts), and `meta` alone (as the document describes it).
 */
export const NO_INPUT_ENVELOPES: readonly unknown[] = [superjsonEnvelope(undefined, [], [false]), { meta: { values: ['undefined'], v: 1 } }];

function replaceAt(value: unknown, path: (string | number)[], replace: (v: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replace) : v));
  const o = value as Record<string, unknown>;
  return { ...o, [head!]: replaceAt(o[head!], rest, replace) };
}

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

type Arbitraries = ReturnType<typeof createArbitraries>;
const isJsonMedia = (mediaType: string) => /^application\/([\w.+-]*\+)?json$/i.test(mediaType);

/**
 * The parameter's schema, and whether its value travels as JSON text (`content`, or a string
 * whose `contentMediaType` is JSON: its `contentSchema` describes the parsed value) or as plain text.
 */
function parameterSchema(parameter: Schema): { schema: unknown; json: boolean } {
  if (parameter.content) {
    const [mediaType, media] = Object.entries(parameter.content as Record<string, Schema>)[0]!;
    return { schema: media.schema ?? true, json: isJsonMedia(mediaType) };
  }
  const schema = parameter.schema as Schema | undefined;
  if (schema?.contentSchema && isJsonMedia(String(schema.contentMediaType ?? ''))) return { schema: schema.contentSchema, json: true };
  return { schema: parameter.schema ?? true, json: false };
}

function requestBodyOf(doc: OpenApiDocument, op: Operation): { required: boolean; mediaType: string; schema: unknown } | undefined {
  if (!op.operation.requestBody) return undefined;
  const body = deref(doc, op.operation.requestBody);
  const entries = Object.entries((body.content ?? {}) as Record<string, Schema>);
  const [mediaType, media] = entries.find(([m]) => isJsonMedia(m)) ?? entries[0] ?? [];
  if (!mediaType) return undefined;
  return { required: body.required === true, mediaType, schema: media!.schema ?? true };
}

/**
 * A plain-text parameter as the server reads it: text, or the number/boolean it spells when the
 * schema takes those (how a query string is coerced at the edge), for judging validity.
 */
function asRead(schema: Schema, raw: string): unknown {
  const types = typesOf(schema);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** How a generated value is written into a path, query or header (form style for arrays). */
function asText(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.every((v) => v === null || typeof v !== 'object') ? value.map(String) : undefined;
  if (value !== null && typeof value === 'object') return undefined;
  return [String(value)];
}

export function requestArbitraries(doc: OpenApiDocument, op: Operation, arbs: Arbitraries, validators: Validators) {
  const body = requestBodyOf(doc, op);

  /**
   * A procedure's envelope as a superjson client builds it: the input drawn from `<procedure>.input`,
   * half the time with its date-times as Dates; `superjson.serialize(undefined)` now and then when
   * the input may be left out. `meta` is never drawn from its schema (it only says "an object").
   */
  function validEnvelope(envelope: { input: unknown; inputOptional: boolean }): fc.Arbitrary<unknown> {
    const built = fc
      .tuple(arbs.valid(envelope.input, 'json'), fc.boolean(), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
      .map(([input, dates, which]) => superjsonEnvelope(input, dates ? arbs.dateTimePaths(envelope.input, input) : [], which));
    return envelope.inputOptional ? fc.oneof({ weight: 4, arbitrary: built }, { weight: 1, arbitrary: fc.constantFrom(...NO_INPUT_ENVELOPES) }) : built;
  }

  /** The input wrong (one thing), in the envelope a client builds for it. */
  function invalidEnvelope(envelope: { input: unknown; inputOptional: boolean }): fc.Arbitrary<unknown> | null {
    const bad = arbs.invalid(envelope.input, 'json');
    return bad && bad.map((input) => superjsonEnvelope(input, [], [false]));
  }

  /** Envelopes no client builds, each a 400: not JSON, `json` missing where required, a `meta` naming a path `json` lacks. */
  function malformedEnvelopes(envelope: { input: unknown; inputOptional: boolean }): fc.Arbitrary<{ value: unknown; what: string }> {
    const cases: fc.Arbitrary<{ value: unknown; what: string }>[] = [
      fc.constantFrom({ value: new RawText('{"json":'), what: 'an envelope that is not JSON' }, { value: new RawText('json=1'), what: 'an envelope that is not JSON' }),
      fc.constant({ value: {}, what: 'an envelope with neither json nor meta' }),
      validEnvelope({ ...envelope, inputOptional: false }).map((e) => ({
        value: { ...(e as Record<string, unknown>), meta: { values: { 'noSuchField.atAll': ['Date'] }, v: 1 } },
        what: 'a meta that describes a path json lacks',
      })),
    ];
    if (!envelope.inputOptional) cases.push(fc.constantFrom(...NO_INPUT_ENVELOPES).map((value) => ({ value, what: 'no input where the input is required' })));
    return fc.oneof(...cases);
  }

  /** A valid raw value for a parameter (text already for `schema` parameters). */
  function validParameter(parameter: Schema): fc.Arbitrary<unknown> {
    const { schema, json } = parameterSchema(parameter);
    const envelope = json ? envelopeOf(doc, schema) : undefined;
    if (envelope) return validEnvelope(envelope);
    const arb = arbs.valid(schema, parameter.name);
    if (json) return arb;
    const flat = flatten(doc, schema);
    // A value must survive being written as text: what the server reads back must still be valid.
    return bounded(arb.map(asText), (t): t is string[] => t !== undefined && (parameter.in !== 'path' || t[0] !== '') && validText(parameter, flat, t), `the ${parameter.in} parameter ${parameter.name} as text`);
  }

  function validText(parameter: Schema, flat: Schema, texts: string[]): boolean {
    const { schema } = parameterSchema(parameter);
    const read = typesOf(flat).includes('array') ? texts.map((t) => asRead(flatten(doc, flat.items ?? true), t)) : asRead(flat, texts[0]!);
    if (parameter.in === 'header' && !texts.every((t) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(t))) return false;
    return validators.isValid(schema, read) && (!typesOf(flat).includes('array') ? texts.length === 1 : true);
  }

  const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

  function invalidParameter(parameter: Schema): fc.Arbitrary<unknown> | null {
    const { schema, json } = parameterSchema(parameter);
    const envelope = json ? envelopeOf(doc, schema) : undefined;
    if (envelope) return invalidEnvelope(envelope);
    const arb = arbs.invalid(schema, parameter.name);
    if (!arb) return null;
    if (json) return arb;
    const flat = flatten(doc, schema);
    // Judged as the server receives it: HTTP trims a header's surrounding whitespace, and a lone
    // surrogate in a URL arrives as U+FFFD (neither can be sent as generated).
    const received = (t: string[] | undefined) => t?.map((v) => (parameter.in === 'header' ? v.replace(/^[ \t]+|[ \t]+$/g, '') : v.replace(LONE_SURROGATE, '\uFFFD')));
    const asWritten = bounded(arb.map(asText).map(received), (t): t is string[] => t !== undefined && t.length > 0 && (parameter.in !== 'path' || t[0] !== '') && (parameter.in !== 'header' || t.every((v) => /^[\x20-\x7e]*$/.test(v))) && !validText(parameter, flat, t), `an invalid ${parameter.in} parameter ${parameter.name} as text`);
    // Text takes any value a plain string schema admits: such a parameter has no invalid form.
    try {
      fc.sample(asWritten, { numRuns: 5, seed: 1 });
      return asWritten;
    } catch (e) {
      if (e instanceof GeneratorProblem) return null;
      throw e;
    }
  }

  const locations = ['path', 'query', 'header'] as const;
  const byLocation = (where: string) => op.parameters.filter((p) => p.in === where);

  /** `x-mutually-exclusive-parameters`: groups of parameters (by name) a request may not send together. */
  const exclusive = ((op.operation['x-mutually-exclusive-parameters'] ?? []) as string[][]).filter((group) => Array.isArray(group) && group.length > 1);

  function validParameters(where: string): fc.Arbitrary<Record<string, unknown>> {
    const params = byLocation(where);
    const required = params.filter((p) => p.required === true || p.in === 'path').map((p) => p.name);
    const record = fc.record(Object.fromEntries(params.map((p) => [p.name, validParameter(p)])), {
      requiredKeys: required as never[],
    }) as fc.Arbitrary<Record<string, unknown>>;
    const groups = exclusive.filter((group) => group.every((name) => params.some((p) => p.name === name)));
    if (groups.length === 0) return record;
    // Never all of a group: when a draw has them, one that may be left out is.
    return fc.tuple(record, fc.array(fc.nat(), { minLength: groups.length, maxLength: groups.length })).map(([values, picks]) => {
      const out = { ...values };
      groups.forEach((group, i) => {
        const optional = group.filter((name) => !required.includes(name));
        if (group.every((name) => name in out) && optional.length > 0) delete out[optional[picks[i]! % optional.length]!];
      });
      return out;
    });
  }

  const bodyEnvelope = body ? envelopeOf(doc, body.schema) : undefined;
  const validBody = body ? (bodyEnvelope ? validEnvelope(bodyEnvelope) : arbs.valid(body.schema, 'body')) : undefined;
  const positive: fc.Arbitrary<GeneratedRequest> = fc
    .record({
      path: validParameters('path'),
      query: validParameters('query'),
      header: validParameters('header'),
      body: validBody ? (body!.required ? validBody : fc.option(validBody, { nil: undefined })) : fc.constant(undefined),
    })
    .map(({ body: value, ...params }) => ({ ...params, body: value === undefined ? undefined : { mediaType: body!.mediaType, value } }));

  /** One thing wrong: a parameter missing or invalid, or the body invalid or missing; the rest valid. */
  const mutations: fc.Arbitrary<GeneratedRequest>[] = [];
  for (const parameter of op.parameters) {
    const where = parameter.in as (typeof locations)[number];
    if (!locations.includes(where)) continue;
    if (parameter.required === true && where !== 'path') {
      mutations.push(positive.map((r) => {
        const { [parameter.name]: _dropped, ...rest } = r[where];
        return { ...r, [where]: rest };
      }));
    }
    const bad = invalidParameter(parameter);
    if (bad) mutations.push(fc.tuple(positive, bad).map(([r, value]) => ({ ...r, [where]: { ...r[where], [parameter.name]: value } })));
  }
  if (body) {
    const bad = bodyEnvelope ? invalidEnvelope(bodyEnvelope) : arbs.invalid(body.schema, 'body');
    if (bad) mutations.push(fc.tuple(positive, bad).map(([r, value]) => ({ ...r, body: { mediaType: body.mediaType, value } })));
    if (body.required) mutations.push(positive.map((r) => ({ ...r, body: undefined })));
    if (bodyEnvelope) {
      mutations.push(fc.tuple(positive, malformedEnvelopes(bodyEnvelope)).map(([r, { value, what }]) => ({ ...r, body: { mediaType: body.mediaType, value }, strictly400: what })));
    }
  }
  for (const parameter of op.parameters) {
    const { schema, json } = parameterSchema(parameter);
    const envelope = json ? envelopeOf(doc, schema) : undefined;
    const where = parameter.in as (typeof locations)[number];
    if (!envelope || !locations.includes(where)) continue;
    mutations.push(fc.tuple(positive, malformedEnvelopes(envelope)).map(([r, { value, what }]) => ({ ...r, [where]: { ...r[where], [parameter.name]: value }, strictly400: what })));
  }
  // Both (all) of a mutually exclusive group, each valid.
  for (const group of exclusive) {
    const params = group.map((name) => op.parameters.find((p) => p.name === name && locations.includes(p.in)));
    if (params.some((p) => !p)) continue;
    const values = fc.tuple(...params.map((p) => validParameter(p!)));
    mutations.push(fc.tuple(positive, values).map(([r, drawn]) => {
      const out: GeneratedRequest = { ...r, path: { ...r.path }, query: { ...r.query }, header: { ...r.header } };
      params.forEach((p, i) => ((out as unknown as Record<string, Record<string, unknown>>)[p!.in]![p!.name] = drawn[i]));
      return out;
    }));
  }
  const negative = mutations.length > 0 ? fc.oneof(...mutations) : null;

  /** Whether a drawn positive request is valid indeed (JSON values checked whole, by ajv). */
  function isValid(r: GeneratedRequest): boolean {
    for (const parameter of op.parameters) {
      const value = (r as unknown as Record<string, Record<string, unknown>>)[parameter.in]?.[parameter.name];
      const { schema, json } = parameterSchema(parameter);
      if (value !== undefined && json && !validators.isValid(schema, value)) return false;
    }
    return !body || (r.body === undefined ? !body.required : validators.isValid(body.schema, r.body.value));
  }
  return { positive, negative, isValid };
}

export function toWire(op: Operation, generated: GeneratedRequest, authorization: string): WireRequest {
  const parameterOf = (where: string, name: string) => op.parameters.find((p) => p.in === where && p.name === name)!;
  const texts = (where: string, name: string, value: unknown): string[] =>
    value instanceof RawText ? [value.text] : parameterSchema(parameterOf(where, name)).json ? [JSON.stringify(value)] : (value as string[]);
  let path = op.path;
  for (const [name, value] of Object.entries(generated.path)) path = path.replace(`{${name}}`, encodeURIComponent(texts('path', name, value)[0]!));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(generated.query)) for (const text of texts('query', name, value)) query.append(name, text);
  const headers: Record<string, string> = { authorization };
  for (const [name, value] of Object.entries(generated.header)) headers[name.toLowerCase()] = texts('header', name, value).join(',');
  let body: string | undefined;
  if (generated.body) {
    headers['content-type'] = generated.body.mediaType;
    const { value } = generated.body;
    body = value instanceof RawText ? value.text : isJsonMedia(generated.body.mediaType) ? JSON.stringify(value) : String(value);
  }
  const search = query.toString();
  return { method: op.method, url: search ? `${path}?${search}` : path, headers, body };
}

export function send(port: number, req: WireRequest): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) };
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** The request envelopes (by operation) of procedures whose input may be left out. */
export function optionalInputEnvelopes(doc: OpenApiDocument, ops: Operation[]): { label: string; schema: unknown }[] {
  return ops.flatMap((op) => {
    const body = requestBodyOf(doc, op);
    const schemas = [...op.parameters.map((p) => parameterSchema(p)).filter((p) => p.json).map((p) => p.schema), ...(body ? [body.schema] : [])];
    return schemas.filter((schema) => envelopeOf(doc, schema)?.inputOptional).map((schema) => ({ label: op.label, schema }));
  });
}

/** What is wrong with an answer against the operation's documented responses ([] when nothing). */
export function conformanceProblems(doc: OpenApiDocument, op: Operation, res: WireResponse, validators: Validators): string[] {
  const responses = (op.operation.responses ?? {}) as Record<string, unknown>;
  const documented = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? responses.default;
  if (!documented) return [`status ${res.status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
  const spec = deref(doc, documented);
  const problems: string[] = [];
  for (const [name, header] of Object.entries((spec.headers ?? {}) as Record<string, unknown>)) {
    const h = deref(doc, header);
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      if (h.required === true) problems.push(`required header ${name} is missing`);
      continue;
    }
    if (h.schema) {
      const text = [value].flat().join(',');
      const errors = validators.errorsOf(h.schema, asRead(flatten(doc, h.schema), text));
      if (errors.length > 0) problems.push(`header ${name}: ${JSON.stringify(text)} ${errors.join('; ')}`);
    }
  }
  const content = (spec.content ?? {}) as Record<string, Schema>;
  if (Object.keys(content).length === 0) return problems;
  const contentType = String(res.headers['content-type'] ?? '');
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const match = Object.keys(content).find((m) => {
    const [type, sub] = m.toLowerCase().split('/');
    const [gotType, gotSub] = mediaType.split('/');
    return (type === '*' || type === gotType) && (sub === '*' || sub === gotSub);
  });
  if (!match) return [...problems, `Content-Type ${JSON.stringify(contentType)} is not documented for ${res.status} (${Object.keys(content).join(', ')})`];
  const schema = content[match]!.schema;
  if (schema === undefined || !isJsonMedia(mediaType)) return problems;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [...problems, `the body is not JSON: ${res.text.slice(0, 200)}`];
  }
  const errors = validators.errorsOf(schema, body);
  if (errors.length > 0) problems.push(`the body does not match the ${res.status} schema: ${errors.slice(0, 8).join('; ')}`);
  return problems;
}

/** Ids of records in an answer (`id`, `...Id`), so later requests can use real ones. */
export function harvestIds(text: string, into: Set<string>): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  const walk = (value: unknown, key: string) => {
    if (Array.isArray(value)) value.forEach((v) => walk(v, key));
    else if (value !== null && typeof value === 'object') Object.entries(value).forEach(([k, v]) => walk(v, k));
    else if (typeof value === 'string' && (key === 'id' || /Id$/.test(key)) && /^[a-z][a-z0-9]*_[A-Za-z0-9]+$/.test(value)) into.add(value);
  };
  walk(body, '');
}

export function describeExchange(req: WireRequest, res: WireResponse): string {
  const shown = (s: string) => (s.length > 1500 ? `${s.slice(0, 1500)}… (${s.length} chars)` : s);
  const headers = Object.entries(req.headers).filter(([k]) => k !== 'authorization').map(([k, v]) => `${k}: ${v}`);
  let url = req.url;
  try {
    url = decodeURI(req.url);
  } catch {
    // a lone surrogate stays encoded
  }
  return [
    `> ${req.method} ${url}`,
    ...headers.map((h) => `> ${h}`),
    ...(req.body !== undefined ? [`> ${shown(req.body)}`] : []),
    `< ${res.status} ${res.headers['content-type'] ?? ''}`,
    `< ${shown(res.text)}`,
  ].join('\n');
}
