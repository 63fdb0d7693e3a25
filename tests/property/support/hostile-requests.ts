import fc from 'fast-check';
import superjson from 'superjson';
import { gzipSync } from 'node:zlib';
import type { RawRequest } from '../../helpers/raw-http';
import { hostileValue, objectFromEntries, PROTOTYPE_KEYS } from './hostile-values';

/**
 * Whole hostile HTTP calls to one procedure: envelopes that are well formed, malformed, not
 * envelopes at all, nested past any limit, with superjson `meta` pointing at missing paths and
 * at prototypes; sent as GET or POST with the right and the wrong method, content type, encoding.
 */

export interface HostileCall extends RawRequest {
  /** A short description for failure reports (the generated body may be large). */
  label: string;
}

/** JSON.stringify that also writes BigInt (a plain-JSON client would have to choose something). */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? 'undefined';
}

/** superjson's own encoding; it refuses to write keys such as `__proto__`, which then travel as plain JSON. */
function serialize(value: unknown): { json: unknown; meta?: unknown } {
  try {
    return superjson.serialize(value);
  } catch {
    return { json: value };
  }
}

const ANNOTATIONS: unknown[] = [
  'Date', 'undefined', 'number', 'bigint', 'map', 'set', 'regexp', 'Error', 'URL', 'symbol', 'nonsense',
  ['class', 'Foo'], ['custom', 'Foo'], ['symbol', 'x'], ['typed-array', 'Uint8Array'], ['typed-array', '__proto__'], ['class', 'constructor'],
  42, null, [], {},
];

/** superjson `meta` aimed at the input's fields, at paths that are not there and at prototypes. */
export function hostileMeta(fieldNames: string[]): fc.Arbitrary<unknown> {
  // Far array indexes would make superjson build sparse arrays of billions of slots.
  const segment = fc.constantFrom(...fieldNames, ...PROTOTYPE_KEYS, '0', '1', '99999999', '4294967294', '-1', 'missing', '', 'a\\.b');
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));
  const annotation = fc.constantFrom(...ANNOTATIONS);
  const tree = fc.oneof(annotation.map((a) => [a]), annotation, hostileValue);
  const values = fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(path, tree), { minLength: 1, maxLength: 3 }).map(objectFromEntries) },
    { weight: 1, arbitrary: tree },
  );
  const referentialEqualities = fc.oneof(
    fc.array(fc.tuple(path, fc.array(path, { maxLength: 3 })), { minLength: 1, maxLength: 3 }).map(objectFromEntries),
    fc.array(path, { maxLength: 3 }),
    hostileValue,
  );
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ values, referentialEqualities, v: fc.oneof(fc.constant(1), hostileValue) }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: hostileValue },
  );
}

const NOT_ENVELOPES = [
  '', ' ', 'null', '[]', '{}', '"json"', '1e999', '{"json"', '{"json":1}}', '{"json":{}} trailing', '\ufeff{"json":{}}', '{"meta":{}}',
  '{"json":{},"meta":null}', '{"json":{},"meta":[]}', '{"json":{},"meta":"x"}', '{"__proto__":{"json":{}}}', '{"json":{},"json":[]}',
  '[{"json":{}}]', '{"0":{"json":{}}}', "{'json':{}}", '{"json":NaN}', '{"json":undefined}',
];

/** Nesting just under, at and over the depth limit, and far over it (closed or not). */
const deeplyNested = fc
  .tuple(fc.constantFrom(8, 62, 63, 64, 65, 200, 5_000, 100_000), fc.constantFrom('[', '{"a":'), fc.boolean())
  .map(([depth, open, closed]) => {
    const inner = open === '[' ? `${'['.repeat(depth)}${closed ? ']'.repeat(depth) : ''}` : `${open.repeat(depth)}1${closed ? '}'.repeat(depth) : ''}`;
    return `{"json":${inner}}`;
  });

/** The text of a call's envelope. */
export function envelopeText(input: fc.Arbitrary<unknown>, fieldNames: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: input.map((value) => toJson(serialize(value))) },
    { weight: 2, arbitrary: input.map((value) => toJson({ json: value })) },
    { weight: 3, arbitrary: fc.tuple(input, hostileMeta(fieldNames)).map(([value, meta]) => toJson({ json: serialize(value).json, meta })) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom(...NOT_ENVELOPES), hostileValue.map(toJson)) },
    { weight: 1, arbitrary: deeplyNested },
  );
}

/**
 * Percent-encodes a query value. JSON.stringify escapes lone surrogates, so envelope texts never
 * hold one; a text that does is sent as UTF-8 would carry it (U+FFFD).
 */
function encodeQueryValue(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/\p{Cs}/gu, '\ufffd'));
  }
}

const ODD_QUERIES = [
  'input', 'input=', 'input=%', 'input=%E0%A4%A', 'input=%FF%FE%00', 'input[json]=1', 'input[__proto__][polluted]=1',
  '__proto__[polluted]=1&input=%7B%22json%22%3A%7B%7D%7D', 'constructor[prototype][polluted]=1', 'batch=1&input=%7B%7D',
  `input=${'%7B'.repeat(3_000)}`, `input=${'x'.repeat(20_000)}`, `${'a=1&'.repeat(2_000)}input=%7B%22json%22%3A%7B%7D%7D`,
];

const WRONG_CONTENT_TYPES = [
  undefined, '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1',
  'application/json; charset=utf-16', 'application/jsonx', 'application/json, text/plain', 'application/json; charset="utf-8"',
  'APPLICATION/JSON', 'application/json;;', 'application/*',
];

export function callArbitrary(procedure: { name: string; method: 'GET' | 'POST' }, envelope: fc.Arbitrary<string>, key: string): fc.Arbitrary<HostileCall> {
  const target = `/api/v1/rpc/${procedure.name}`;
  const auth = { Authorization: `Bearer ${key}` };
  const get = (query: string, label: string): HostileCall => ({ method: 'GET', target: query === '' ? target : `${target}?${query}`, headers: auth, label });
  const post = (body: string | Buffer, contentType: string | undefined, label: string, extra: Record<string, string> = {}): HostileCall => ({
    method: 'POST',
    target,
    headers: { ...auth, ...(contentType === undefined ? {} : { 'Content-Type': contentType }), ...extra },
    body,
    label,
  });
  const asGet = envelope.map((text) => get(`input=${encodeQueryValue(text)}`, `GET input=${text.slice(0, 300)}`));
  const asJsonPost = envelope.map((text) => post(text, 'application/json', `POST ${text.slice(0, 300)}`));
  const oddTransport = fc.oneof(
    fc.constantFrom(...ODD_QUERIES).map((query) => get(query, `GET ?${query.slice(0, 120)}`)),
    envelope.map((text) => get(`input=${encodeQueryValue(text)}&input=${encodeQueryValue(text)}`, 'GET with input twice')),
    fc.tuple(envelope, fc.constantFrom(...WRONG_CONTENT_TYPES)).map(([text, type]) => post(text, type, `POST as ${String(type)}: ${text.slice(0, 200)}`)),
    envelope.map((text) => post(Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xfe, 0xc3])]), 'application/json', 'POST with invalid UTF-8')),
    envelope.map((text) => post(gzipSync(text), 'application/json', 'POST gzip', { 'Content-Encoding': 'gzip' })),
    envelope.map((text) => post(text, 'application/json', 'POST with an unknown encoding', { 'Content-Encoding': 'br2' })),
    envelope.map((text) => post(text, 'application/json', 'POST with a hostile Idempotency-Key', { 'Idempotency-Key': ` ${text.replace(/[^\x20-\x7e]/g, '').slice(0, 300)}` })),
    fc.constantFrom('PUT', 'PATCH', 'DELETE').map((method) => ({ method, target, headers: auth, label: method })),
  );
  const rightMethod = procedure.method === 'GET' ? asGet : asJsonPost;
  const wrongMethod = procedure.method === 'GET' ? asJsonPost : asGet;
  return fc
    .oneof({ weight: 12, arbitrary: rightMethod }, { weight: 3, arbitrary: oddTransport }, { weight: 1, arbitrary: wrongMethod })
    .map(withShortString);
}

/** fast-check prints counterexamples with this, so a failure report stays readable. */
function withShortString(call: HostileCall): HostileCall {
  return Object.assign(call, { [fc.toStringMethod]: () => `${call.method} ${call.target.slice(0, 200)} [${call.label}]` });
}
