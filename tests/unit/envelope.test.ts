import superjson from 'superjson';
import { decodeEnvelope, encodeError, encodeResult } from '../../src/rpc/envelope';
import { AppError } from '../../src/errors/app-error';
import { decodeFailure } from '../helpers/envelope';

describe('decodeEnvelope', () => {
  it('answers the value inside {"json": ...}', () => {
    expect(decodeEnvelope('{"json":{"id":"lead_1","page":2}}')).toEqual({ id: 'lead_1', page: 2 });
  });

  it('revives a Date described by superjson meta', () => {
    const text = JSON.stringify(superjson.serialize({ at: new Date('2030-01-02T03:04:05.678Z'), n: 1 }));
    const value = decodeEnvelope(text) as { at: Date; n: number };
    expect(value.at).toBeInstanceOf(Date);
    expect(value.at.toISOString()).toBe('2030-01-02T03:04:05.678Z');
    expect(value.n).toBe(1);
  });

  it('leaves an ISO string a string when meta does not mark it as a Date', () => {
    expect(decodeEnvelope('{"json":{"at":"2030-01-02T03:04:05.678Z"}}')).toEqual({ at: '2030-01-02T03:04:05.678Z' });
  });

  it('reads the tRPC client form {"json":null,"meta":{"values":["undefined"],"v":1}} as undefined', () => {
    expect(decodeEnvelope('{"json":null,"meta":{"values":["undefined"],"v":1}}')).toBeUndefined();
  });

  it('reads {"meta":{"values":["undefined"],"v":1}} without json as undefined', () => {
    expect(decodeEnvelope('{"meta":{"values":["undefined"],"v":1}}')).toBeUndefined();
  });

  it('reads {"json":null} as null, not as no input', () => {
    expect(decodeEnvelope('{"json":null}')).toBeNull();
  });

  it.each(['', '{', '{"json":', "{'json':1}", 'undefined'])('refuses malformed JSON %j with BAD_REQUEST', (text) => {
    const error = decodeFailure(text);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe('Malformed JSON: wrap the input as {"json": <input>}');
  });

  it.each(['null', '1', '"json"', '[]', '[{"json":1}]', '{}', '{"name":"x","phone":"+1"}'])(
    'refuses %s as a missing envelope with BAD_REQUEST',
    (text) => {
      const error = decodeFailure(text);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toBe('Missing envelope: wrap the input as {"json": <input>}');
    },
  );

  it.each(['null', '"Date"', '7', '["Date"]', 'true'])('refuses meta %s that is not an object', (meta) => {
    const error = decodeFailure(`{"json":{"a":1},"meta":${meta}}`);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe('Malformed envelope: "meta" must be an object');
  });

  it.each([
    ['an unknown transformation', '{"json":{"a":"x"},"meta":{"values":{"a":["bogus"]}}}'],
    ['values that are not a tree', '{"json":{"a":"x"},"meta":{"values":"zz"}}'],
  ])('refuses meta with %s as BAD_REQUEST', (_label, text) => {
    const error = decodeFailure(text);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe('Malformed envelope: "meta" does not describe "json"');
  });

  it('refuses a __proto__ path in meta without polluting Object.prototype', () => {
    const error = decodeFailure('{"json":{},"meta":{"values":{"__proto__.polluted":["undefined"]}}}');
    expect(error.code).toBe('BAD_REQUEST');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  });
});

describe('encodeResult', () => {
  it('wraps a plain value as {"result":{"data":{"json"}}} with no meta', () => {
    expect(encodeResult({ id: 'lead_1', tags: ['a'] })).toEqual({ result: { data: { json: { id: 'lead_1', tags: ['a'] } } } });
  });

  it('serialises Dates as ISO strings with superjson meta naming them', () => {
    const encoded = JSON.parse(JSON.stringify(encodeResult({ at: new Date('2030-01-02T03:04:05.678Z'), none: null })));
    expect(encoded).toEqual({
      result: { data: { json: { at: '2030-01-02T03:04:05.678Z', none: null }, meta: { values: { at: ['Date'] }, v: 1 } } },
    });
    expect(superjson.deserialize(encoded.result.data as never)).toEqual({ at: new Date('2030-01-02T03:04:05.678Z'), none: null });
  });

  it('round-trips through JSON text and decodeEnvelope', () => {
    const value = { at: new Date('2031-01-01T00:00:00.000Z'), list: [1, 2] };
    const { result } = encodeResult(value);
    expect(decodeEnvelope(JSON.stringify(result.data))).toEqual(value);
  });
});

describe('encodeError', () => {
  it('answers the tRPC error shape with the JSON-RPC number, code, status and path', () => {
    expect(encodeError(new AppError('FORBIDDEN', 'missing scope: leads.create'), 'leads.create')).toEqual({
      error: {
        json: { message: 'missing scope: leads.create', code: -32003, data: { code: 'FORBIDDEN', httpStatus: 403, path: 'leads.create' } },
      },
    });
  });

  it('leaves out data.path when there is no procedure name', () => {
    const { error } = encodeError(new AppError('NOT_FOUND', 'No procedure named ""'), undefined) as { error: { json: { data: object } } };
    expect(error.json.data).toEqual({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('carries field issues in data.issues', () => {
    const issues = [{ path: ['phones', 0], message: 'not a valid phone number' }];
    const encoded = encodeError(new AppError('BAD_REQUEST', 'Invalid input: phones[0]: not a valid phone number', { issues }), 'leads.create');
    expect(encoded).toEqual({
      error: {
        json: {
          message: 'Invalid input: phones[0]: not a valid phone number',
          code: -32600,
          data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.create', issues },
        },
      },
    });
  });

  it('never includes the cause or a stack', () => {
    const encoded = encodeError(new AppError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred', { cause: new Error('secret SQL') }), 'x.y');
    const text = JSON.stringify(encoded);
    expect(text).not.toMatch(/secret SQL|stack/);
    expect(encoded).toEqual({
      error: { json: { message: 'An unexpected error occurred', code: -32603, data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, path: 'x.y' } } },
    });
  });
});
