import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { useTracing } from './tracing';
import type { TracingSettings } from './tracing-settings';

/**
 * Starts the OpenTelemetry SDK: required by tracing-from-env.ts only when tracing is on, before `http`,
 * `pg` and `pino` are first required (the instrumentations patch them as they load). The SDK
 * reads the rest of the OTEL_* variables itself: the exporter's endpoint, headers, timeout and
 * compression, the sampler (OTEL_TRACES_SAMPLER, every span by default), the batch processor's
 * OTEL_BSP_*, and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector).
 * @public required (not imported) by tracing-from-env.ts, which knip does not follow.
 */
export function startTracing(settings: TracingSettings): void {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': settings.defaultServiceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporterFor(settings))] });
  // The W3C traceparent (and baggage) propagator, and AsyncLocalStorage for the active span.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Each statement's text (bound values are never in it: enhancedDatabaseReporting stays off),
      // only inside a traced request or job; no connection spans (the pool keeps its connections).
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true, ignoreConnectSpans: true }),
      // traceId and spanId in every log line written while a span is active; the lines stay on stdout only.
      new PinoInstrumentation({ disableLogSending: true, logKeys: { traceId: 'traceId', spanId: 'spanId', traceFlags: 'traceFlags' } }),
    ],
  });
  useTracing(settings, provider.getTracer('workspace-api'), () => provider.shutdown());
}

function exporterFor(settings: TracingSettings): SpanExporter {
  if (settings.protocol === 'http/json') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter();
}
