import type { AnyProcedure } from '../rpc/registry';
import { scopesOf } from '../rpc/define-procedure';
import { acceptsNoInput } from './json-schema';
import { inputQueryParameter, ref, requestEnvelope, successEnvelope } from './envelopes';
import { rpcErrorResponses } from './errors';
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency';

export const RPC_PATH_PREFIX = '/api/v1/rpc';

/** The component name of a procedure's input schema. */
export const inputSchemaName = (procedure: { name: string }): string => `${procedure.name}.input`;

/** The component name of a procedure's output schema (a `$ref` to the resource when it answers one, such as Lead). */
export const outputSchemaName = (procedure: { name: string }): string => `${procedure.name}.output`;

function describe(procedure: AnyProcedure): string {
  const scopes = scopesOf(procedure);
  const required = scopes.length === 1 ? `**Required scope:** \`${procedure.scope}\`` : `**Required scopes:** ${scopes.map((s) => `\`${s}\``).join(' and ')}`;
  const lines = [procedure.description, '', required];
  const d = procedure.deprecated;
  if (d) {
    const instead = d.replacement ? `; use \`${d.replacement}\` instead` : '';
    lines.push('', `**Deprecated** since ${d.since}; stops answering on ${d.sunset}${instead}.`);
  }
  return lines.join('\n');
}

/**
 * One action endpoint: a read takes its envelope in the `input` query parameter (URL-encoded
 * JSON), a write in the body; both answer the tRPC envelopes.
 */
export function procedureOperation(procedure: AnyProcedure, links?: Record<string, unknown>): Record<string, unknown> {
  const optional = acceptsNoInput(procedure.input);
  const operation: Record<string, unknown> = {
    operationId: procedure.name,
    summary: procedure.description,
    description: describe(procedure),
    tags: [procedure.name.split('.')[0]],
    security: [{ bearerAuth: scopesOf(procedure) }],
    'x-required-scope': procedure.scope,
    responses: {
      '200': {
        description: 'Success: the output in the envelope.',
        ...(procedure.method === 'POST' ? { headers: IDEMPOTENT_REPLAYED_HEADER } : {}),
        ...(links ? { links } : {}),
        content: { 'application/json': { schema: successEnvelope(procedure.output ? ref(outputSchemaName(procedure)) : {}) } },
      },
      ...rpcErrorResponses(procedure.method),
    },
  };
  if (procedure.method === 'GET') {
    operation.parameters = [inputQueryParameter(ref(inputSchemaName(procedure)), optional)];
  } else {
    operation.requestBody = { required: true, content: { 'application/json': { schema: requestEnvelope(ref(inputSchemaName(procedure)), optional) } } };
    operation.parameters = [IDEMPOTENCY_KEY_PARAMETER];
  }
  if (procedure.deprecated) {
    operation.deprecated = true;
    operation['x-sunset'] = procedure.deprecated.sunset;
    if (procedure.deprecated.replacement) operation['x-replacement'] = procedure.deprecated.replacement;
  }
  return operation;
}
