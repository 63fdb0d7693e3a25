import type { AnyProcedure } from '../rpc/registry';
import type { JsonSchema } from './json-schema';

/** Where an action's answer keeps the id of what it created. */
const CREATED_ID = '$response.body#/result/data/json/id';

/**
 * OpenAPI links from each `<router>.create` to every procedure of its router that takes the
 * created record's `id` (its read, update, delete and actions), so a reader or a tool can follow
 * from a create to what can be done next. The id goes in as the envelope's `json.id`.
 */
export function createLinks(create: AnyProcedure, exposed: readonly AnyProcedure[], inputSchemaOf: (p: AnyProcedure) => JsonSchema): Record<string, unknown> | undefined {
  const [router = '', action] = create.name.split('.');
  if (action !== 'create') return undefined;
  const links: Record<string, unknown> = {};
  for (const target of exposed) {
    if (target === create || target.name.split('.')[0] !== router) continue;
    const input = inputSchemaOf(target);
    if (!((input.required ?? []) as string[]).includes('id')) continue;
    const envelope = { json: { id: `{${CREATED_ID}}` } };
    // A link's parameters are strings: the query parameter is the envelope's JSON text.
    const inputText = `{"json":{"id":"{${CREATED_ID}}"}}`;
    links[target.name.replace('.', '_')] = {
      operationId: target.name,
      description: `${target.name} of the ${router.replace(/s$/, '')} just created: its \`id\` is \`json.id\` of this answer.`,
      ...(target.method === 'GET' ? { parameters: { input: inputText } } : { requestBody: envelope }),
    };
  }
  return Object.keys(links).length > 0 ? links : undefined;
}
