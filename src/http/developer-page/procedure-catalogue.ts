import type { Registry } from '../../rpc/registry';
import type { Deprecation } from '../../rpc/define-procedure';
import { acceptsNoInput, inputJsonSchema, type JsonSchema } from '../../openapi/json-schema';

export interface CatalogueProcedure {
  name: string;
  method: 'GET' | 'POST';
  scope: string;
  description: string;
  deprecated: Deprecation | null;
  /** Whether a call may leave the input out (the playground then starts from `{}`). */
  inputOptional: boolean;
  inputSchema: JsonSchema;
}

export interface CatalogueRouter {
  router: string;
  procedures: CatalogueProcedure[];
}

/**
 * What the playground offers: the exposed procedures only (the app-only ones answer 403 to any
 * token), grouped by router in registry order, with the same input schemas as the OpenAPI document.
 */
export function buildProcedureCatalogue(registry: Registry): CatalogueRouter[] {
  const routers = new Map<string, CatalogueProcedure[]>();
  for (const procedure of registry.values()) {
    if (!procedure.exposed) continue;
    const router = procedure.name.split('.')[0]!;
    const list = routers.get(router) ?? [];
    list.push({
      name: procedure.name,
      method: procedure.method,
      scope: procedure.scope,
      description: procedure.description,
      deprecated: procedure.deprecated ?? null,
      inputOptional: acceptsNoInput(procedure.input),
      inputSchema: inputJsonSchema(procedure.input),
    });
    routers.set(router, list);
  }
  return [...routers].map(([router, procedures]) => ({ router, procedures }));
}
