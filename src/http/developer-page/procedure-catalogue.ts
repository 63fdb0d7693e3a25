import type { Registry } from '../../rpc/registry';
import { scopesOf, type Deprecation } from '../../rpc/define-procedure';
import { acceptsNoInput, inputJsonSchema, type JsonSchema } from '../../openapi/json-schema';
import { composeSample } from '../../openapi/sample';

export interface CatalogueProcedure {
  name: string;
  method: 'GET' | 'POST';
  scope: string;
  description: string;
  deprecated: Deprecation | null;
  /** Whether a call may leave the input out (the playground then starts from `{}`). */
  inputOptional: boolean;
  inputSchema: JsonSchema;
  /** The playground's starting input, composed from the schema's examples (sample.ts). */
  sampleInput: unknown;
}

export interface CatalogueRouter {
  router: string;
  procedures: CatalogueProcedure[];
}

/** One row of the scope pickers: None / Read (`read`) / Write (`read` and `write`), as Stripe's restricted keys. */
export interface ScopeResource {
  resource: string;
  read: string | null;
  /** create, update, delete (those that exist), then any other action. */
  write: string[];
  /** Scopes no level grants (OPT_IN_SCOPES, e.g. contacts.erase): each is its own unchecked box. */
  optIn: string[];
}

/** What ids look like (src/domain/ids.ts): a prefix and 22 base62 characters. */
const RECORD_ID = /^[a-z]+_[0-9A-Za-z]{22}$/;
/** An optional reference's example id names no record: in a sample it would turn a call that could succeed into a 404. */
const leaveOutReferences = (_name: string, example: unknown) => !(typeof example === 'string' && RECORD_ID.test(example));

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
    const inputSchema = inputJsonSchema(procedure.input);
    list.push({
      name: procedure.name,
      method: procedure.method,
      // Two for a procedure that does what two others do (leads.upsert): "leads.create and leads.update".
      scope: scopesOf(procedure).join(' and '),
      description: procedure.description,
      deprecated: procedure.deprecated ?? null,
      inputOptional: acceptsNoInput(procedure.input),
      inputSchema,
      sampleInput: composeSample(inputSchema, { includeOptional: leaveOutReferences }),
    });
    routers.set(router, list);
  }
  return [...routers].map(([router, procedures]) => ({ router, procedures }));
}

const WRITE_ORDER = ['create', 'update', 'delete'];
const writeRank = (action: string) => (WRITE_ORDER.includes(action) ? WRITE_ORDER.indexOf(action) : WRITE_ORDER.length);

/** The scopes (`<resource>.<action>`) grouped by resource, in the order given, for the None / Read / Write pickers. */
export function groupScopesByResource(scopes: Iterable<string>, optIn: ReadonlySet<string> = new Set()): ScopeResource[] {
  const byResource = new Map<string, ScopeResource>();
  for (const scope of scopes) {
    const dot = scope.indexOf('.');
    const resource = scope.slice(0, dot);
    const action = scope.slice(dot + 1);
    const row = byResource.get(resource) ?? { resource, read: null, write: [], optIn: [] };
    if (optIn.has(scope)) row.optIn.push(scope);
    else if (action === 'read') row.read = scope;
    else row.write.push(scope);
    byResource.set(resource, row);
  }
  for (const row of byResource.values()) {
    row.write.sort((a, b) => writeRank(a.split('.')[1]!) - writeRank(b.split('.')[1]!) || a.localeCompare(b));
  }
  return [...byResource.values()];
}
