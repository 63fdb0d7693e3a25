import { z } from 'zod';
import { procedures } from '../../src/procedures';
import { createRegistry } from '../../src/rpc/registry';
import { defineProcedure } from '../../src/rpc/define-procedure';
import { checkedFieldsOf, inputProblems } from '../../src/rpc/field-checks';
import { parseWithContext } from '../../src/rpc/parse-context';
import { fromZodError, zodFieldIssues } from '../../src/errors/zod-issues';
import { listOf, objectOf, requiredText } from '../../src/procedures/shared/fields';
import { phoneField } from '../../src/procedures/shared/format-fields';
import { referenceTo } from '../../src/procedures/shared/references';

/** The pure parts of "every problem in one answer": the parse context, the field checks' placement, the answer's code. */

const GB = { phoneRegion: 'GB', webhookUrlPolicy: 'production' as const };
const US = { phoneRegion: 'US', webhookUrlPolicy: 'production' as const };

describe('parseWithContext', () => {
  const schema = objectOf({ phone: phoneField });

  it("reads a national phone in the context's region and answers it in E.164", () => {
    expect(parseWithContext(schema, { phone: '020 7946 0018' }, GB)).toEqual({ success: true, data: { phone: '+442079460018' } });
    expect(parseWithContext(schema, { phone: '(212) 456-7890' }, US)).toEqual({ success: true, data: { phone: '+12124567890' } });
  });

  it("words a refusal with the region's own example", () => {
    const result = parseWithContext(schema, { phone: '020 7946 0018' }, US) as z.ZodSafeParseResult<unknown>;
    expect(result.success).toBe(false);
    expect(zodFieldIssues(result.error!).issues).toEqual([
      { path: ['phone'], message: 'expected a phone number in E.164, e.g. +12015550123, or in the national format of region US, e.g. (201) 555-0123, got "020 7946 0018"' },
    ]);
  });

  it('refuses to read a phone outside a parse with a context, rather than guess a region', () => {
    expect(() => schema.safeParse({ phone: '020 7946 0018' })).toThrow(/outside parseWithContext/);
  });

  it('restores the outer context after a parse inside another field', () => {
    const inner = z.string().transform((value) => parseWithContext(schema, { phone: value }, US));
    const outer = objectOf({ nested: inner, phone: phoneField });
    const parsed = parseWithContext(outer, { nested: '(212) 456-7890', phone: '020 7946 0018' }, GB) as z.ZodSafeParseResult<{ phone: string }>;
    expect(parsed.data?.phone).toBe('+442079460018');
  });
});

describe('the checks of fields that need the database', () => {
  const checked = Object.fromEntries(
    procedures.map((p) => [p.name, checkedFieldsOf(p.input).map((field) => field.path.join('.'))] as const).filter(([, paths]) => paths.length > 0),
  );

  it('are found in every input that links to another record (and in webhook URLs, whose host is resolved)', () => {
    expect(checked).toEqual({
      'leads.create': ['assignedToId'],
      'leads.update': ['assignedToId'],
      'leads.upsert': ['assignedToId'],
      'leads.assign': ['assignedToId'],
      'leads.convert': ['clientId'],
      'clients.create': ['contactId'],
      'clients.update': ['contactId'],
      'tasks.create': ['leadId', 'clientId', 'assignedToId'],
      'tasks.update': ['leadId', 'clientId', 'assignedToId'],
      'invoices.create': ['clientId'],
      'invoices.update': ['clientId'],
      'webhooks.create': ['url'],
      'webhooks.update': ['url'],
    });
  });

  it('cover every `*Id` field of every write: an id a write links to must name a record of the workspace', () => {
    const unchecked = procedures
      .filter((p) => p.method === 'POST')
      .flatMap((p) => Object.keys((p.input as z.ZodObject)._zod.def.shape ?? {}).filter((key) => /.Id$/.test(key) && key !== 'externalId') /* the caller's own id, no link */.map((key) => `${p.name}.${key}`))
      .filter((field) => !(checked[field.slice(0, field.lastIndexOf('.'))] ?? []).includes(field.slice(field.lastIndexOf('.') + 1)));
    expect(unchecked).toEqual([]);
  });

  it('make the registry refuse, at start-up, a checked field where its check would not run (inside a list)', () => {
    const procedure = defineProcedure({
      name: 'tasks.linkMany',
      method: 'POST',
      scope: 'tasks.update',
      exposed: true,
      description: 'test only',
      input: objectOf({ leadIds: listOf(referenceTo('leads'), { of: 'lead ids', max: 5 }) }),
      output: z.unknown(),
      handler: async () => null,
    });
    expect(() => createRegistry([procedure])).toThrow('procedure "tasks.linkMany": a checked field at leadIds is inside a array, where checks are not run');
  });
});

describe('the one answer to an input with problems', () => {
  const missing = [{ path: ['leadId'], message: 'no lead "lead_x" in this workspace', failure: 'NOT_FOUND' as const }];

  it('is a 404 naming each missing record when references are the only problem', () => {
    const error = inputProblems(undefined, [...missing, { path: ['clientId'], message: 'no client "cli_x" in this workspace', failure: 'NOT_FOUND' }]);
    expect({ code: error.code, message: error.message, issues: error.issues }).toEqual({
      code: 'NOT_FOUND',
      message: 'leadId: no lead "lead_x" in this workspace; clientId: no client "cli_x" in this workspace',
      issues: [{ path: ['leadId'], message: 'no lead "lead_x" in this workspace' }, { path: ['clientId'], message: 'no client "cli_x" in this workspace' }],
    });
  });

  it('is a 400 listing the schema issues and the missing records together otherwise', () => {
    const schemaError = objectOf({ title: requiredText(10) }).safeParse({ title: '' }).error!;
    const error = inputProblems(schemaError, missing);
    expect({ code: error.code, message: error.message, issues: error.issues }).toEqual({
      code: 'BAD_REQUEST',
      message: 'Invalid input: title: expected non-blank text of at most 10 characters, got empty text; leadId: no lead "lead_x" in this workspace',
      issues: [
        { path: ['title'], message: 'expected non-blank text of at most 10 characters, got empty text' },
        { path: ['leadId'], message: 'no lead "lead_x" in this workspace' },
      ],
    });
  });
});

describe('unknown fields', () => {
  it('are each an issue at their own path, naming the fields a builder-made object takes', () => {
    const error = objectOf({ page: z.number(), pageSize: z.number() }).safeParse({ page: 1, pageSize: 2, pagesize: 3, x: 4 }).error!;
    expect(zodFieldIssues(error).issues).toEqual([
      { path: ['pagesize'], message: 'unknown field; expected only the fields page, pageSize' },
      { path: ['x'], message: 'unknown field; expected only the fields page, pageSize' },
    ]);
  });

  it('are "unknown field" in an object zod words itself', () => {
    expect(fromZodError(z.strictObject({}).safeParse({ x: 1 }).error!).issues).toEqual([{ path: ['x'], message: 'unknown field' }]);
  });
});
