import { TracingSettingsError, tracingSettingsFrom } from '../../src/observability/tracing-settings';

describe('tracingSettingsFrom', () => {
  it('is off without an OTEL_* variable asking for traces', () => {
    expect(tracingSettingsFrom({}, 'workspace-api')).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'workspace-api')).toBeUndefined();
  });

  it('is on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp, http/protobuf by default', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'workspace-api'))
      .toEqual({ defaultServiceName: 'workspace-api', protocol: 'http/protobuf', shownEndpoint: 'http://collector:4318/v1/traces' });
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'otlp' }, 'workspace-api-worker'))
      .toEqual({ defaultServiceName: 'workspace-api-worker', protocol: 'http/protobuf', shownEndpoint: 'http://localhost:4318/v1/traces' });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.com/api/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'a'))
      .toMatchObject({ protocol: 'http/json', shownEndpoint: 'https://otlp.example.com/api/traces' });
  });

  it('never is with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingSettingsFrom({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'a')).toBeUndefined();
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'a')).toBeUndefined();
  });

  it('shows the endpoint without its credentials or query', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:token@otlp.example.com/v1/traces?key=secret' }, 'a')?.shownEndpoint)
      .toBe('https://otlp.example.com/v1/traces');
  });

  it('refuses gRPC and unknown exporters, naming the variable', () => {
    expect(() => tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'a'))
      .toThrow(new TracingSettingsError('Invalid environment variable OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: gRPC is not supported (use http/protobuf, the default, or http/json)'));
    expect(() => tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'zipkin' }, 'a')).toThrow(/^Invalid environment variable OTEL_TRACES_EXPORTER: "zipkin" is not supported/);
  });
});
