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
