/**
 * The JSON the page reads: the answers of /developer/api (src/http/developer-api-route.ts; the
 * catalogue's rows from ../procedure-catalogue.ts), of POST /api/v1/playground/token, and the
 * events of events.onEvent once decoded. Dates arrive as ISO strings, except in decoded events.
 * tests/unit/developer-page-assets.test.ts checks the catalogue's types against these.
 */

export interface Me {
  member: { id: string; name: string; email: string; permissions: string[] };
  workspace: { id: string; name: string; tier: string };
  developer: boolean;
  developerApi: boolean;
  sessionExpiresAt: string;
}

export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The secret a roll replaced, while it still works. */
  previousSecret: { prefix: string; expiresAt: string } | null;
}

export interface KeysAnswer {
  keys: KeyView[];
}

/** GET /developer/api/keys/:id/requests: apiKeys.getRequests' page, dates as ISO strings. */
export interface KeyRequestsAnswer {
  requests: {
    id: string; at: string; method: string; procedure: string; status: number; errorCode: string | null;
    durationMs: number; requestId: string; clientAddress: string | null;
  }[];
  nextCursor: string | null;
}

export interface CreatedKeyAnswer {
  key: KeyView & { secret: string };
}

/** POST /developer/api/keys/:id/roll. */
export interface RolledKeyAnswer {
  key: KeyView & { secret: string; previousSecretExpiresAt: string | null };
}

export interface Deprecation {
  since: string;
  sunset: string;
  replacement?: string;
}

export interface Procedure {
  name: string;
  method: 'GET' | 'POST';
  scope: string;
  description: string;
  deprecated: Deprecation | null;
  inputOptional: boolean;
  inputSchema: unknown;
  sampleInput: unknown;
}

export interface ProcedureGroup {
  router: string;
  procedures: Procedure[];
}

/** One row of the scope pickers: None / Read (`read`) / Write (`read` and `write`). */
export interface ScopeResource {
  resource: string;
  read: string | null;
  write: string[];
  /** Scopes no level grants (contacts.erase): each its own box, unchecked. */
  optIn: string[];
}

export interface ProceduresAnswer {
  routers: ProcedureGroup[];
  resources: ScopeResource[];
}

/** POST /api/v1/playground/token. */
export interface PlaygroundToken {
  token: string;
  expiresAt: string;
  scopes: string[];
}

/** A REST-style error body (`{ error: { code, message } }`), as /developer/api and the token route send. */
export interface ErrorBody {
  error?: { code?: string; message?: string };
}

/** An event of events.onEvent, decoded (createdAt a Date). */
export interface FeedEvent {
  id: string;
  type: string;
  createdAt: unknown;
  data?: { object?: { id?: string } };
  actor?: { kind?: string; id?: string };
}
