/** What the standard OTEL_* variables ask of this process's tracing; undefined when it is off. */
export interface TracingSettings {
  /** service.name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  defaultServiceName: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Where spans go, for the start log line: no credentials, no query (the exporter reads the variables itself). */
  shownEndpoint: string;
}

type Env = Record<string, string | undefined>;

/** The OTLP/HTTP receiver's default address (the specification's). */
const DEFAULT_ENDPOINT = 'http://localhost:4318';

export class TracingSettingsError extends Error {}

/**
 * Tracing is off unless asked for: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint set (the
 * variables collectors' guides tell people to set), and never with OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none. Only OTLP over HTTP is shipped; gRPC would need another exporter
 * and its native dependencies, so asking for it is refused at start rather than ignored.
 */
export function tracingSettingsFrom(env: Env, defaultServiceName: string): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  const tracesEndpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (exporter === 'none') return undefined;
  if (exporter !== undefined && exporter !== '' && exporter !== 'otlp') {
    throw new TracingSettingsError(`Invalid environment variable OTEL_TRACES_EXPORTER: "${exporter}" is not supported (use otlp, or none)`);
  }
  if (exporter !== 'otlp' && !tracesEndpoint && !endpoint) return undefined;
  const variable = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = nonEmpty(env[variable])?.toLowerCase() ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    const hint = protocol === 'grpc' ? 'gRPC is not supported' : `"${protocol}" is not supported`;
    throw new TracingSettingsError(`Invalid environment variable ${variable}: ${hint} (use http/protobuf, the default, or http/json)`);
  }
  const target = tracesEndpoint ?? `${(endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  return { defaultServiceName, protocol, shownEndpoint: shownUrl(target) };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** An endpoint as it may be logged: a vendor's token may ride in its user info or query. */
function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
