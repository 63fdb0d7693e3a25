import request from 'supertest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestContext } from '../helpers/test-app';

const ctx = createTestContext();
afterAll(() => ctx.close());

/**
 * A second validator beside redocly's lint (openapi-lint.test.ts), which let through an
 * `info.license` without the `identifier` or `url` that OpenAPI 3.1 requires: swagger-parser checks
 * the document the service serves against the specification's own JSON Schema, and resolves every $ref.
 */
test('the served OpenAPI document is valid OpenAPI 3.1 for swagger-parser', async () => {
  const res = await request(ctx.app).get('/api/v1/openapi.json');
  expect(res.status).toBe(200);
  const problems = await SwaggerParser.validate(res.body).then(() => null, (err: Error) => err.message);
  expect(problems).toBeNull();
});

test('swagger-parser still refuses an invalid document: a license without identifier or url, a $ref to nothing', async () => {
  const res = await request(ctx.app).get('/api/v1/openapi.json');
  const withoutLicenseUrl = structuredClone(res.body);
  withoutLicenseUrl.info.license = { name: withoutLicenseUrl.info.license?.name ?? 'UNLICENSED' };
  await expect(SwaggerParser.validate(withoutLicenseUrl)).rejects.toThrow();
  const danglingRef = structuredClone(res.body);
  const [path] = Object.keys(danglingRef.paths);
  const [method] = Object.keys(danglingRef.paths[path!]);
  danglingRef.paths[path!][method!].responses = { 200: { $ref: '#/components/responses/NoSuchResponse' } };
  await expect(SwaggerParser.validate(danglingRef)).rejects.toThrow();
});
