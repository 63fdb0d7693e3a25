import superjson from 'superjson';
import type { JsonSchema } from './json-schema';
import { composeSample } from './sample';
import { RPC_PATH_PREFIX } from './procedure-operation';

type Operation = Record<string, any>;

/**
 * Adds the examples of every operation that declares none: its input (query parameter or body)
 * and its success answer, composed from the schemas' own examples. An action's answer example is
 * superjson's own serialization of the sample, so its `meta` is exactly what the wire carries.
 */
export function withExamples<
  D extends { paths: Record<string, Record<string, Operation>>; webhooks?: Record<string, Record<string, Operation>>; components: { schemas: Record<string, JsonSchema> } },
>(document: D): D {
  const sample = (schema: JsonSchema, dates = false) => composeSample(schema, { root: document as unknown as JsonSchema, dates });
  // A webhook's body is plain JSON, as the REST routes' are.
  for (const [path, item] of [...Object.entries(document.paths), ...Object.entries(document.webhooks ?? {})]) {
    const rpc = path.startsWith(`${RPC_PATH_PREFIX}/`);
    for (const operation of Object.values(item)) {
      for (const parameter of (operation.parameters ?? []) as Operation[]) {
        // An `input` parameter's example is JSON text, as the query carries it.
        const envelope = parameter.schema?.contentSchema;
        if (envelope && parameter.example === undefined) parameter.example = JSON.stringify(sample(envelope));
        if (parameter.schema && parameter.example === undefined && parameter.in === 'path') parameter.example = sample(parameter.schema);
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && body.example === undefined) body.example = sample(body.schema);
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Operation>)) {
        const media = response.content?.['application/json'];
        if (!status.startsWith('2') || !media || media.example !== undefined) continue;
        if (rpc) {
          const output = media.schema.properties.result.properties.data.properties.json;
          media.example = { result: { data: superjson.serialize(sample(output, true)) } };
        } else {
          media.example = sample(media.schema);
        }
      }
    }
  }
  return document;
}
