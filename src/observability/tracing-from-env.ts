import { TracingSettingsError, tracingSettingsFrom } from './tracing-settings';

/**
 * Starts tracing when the OTEL_* variables ask for it; off, the SDK and its instrumentations are
 * never loaded, so they cost nothing. A variable asking for what is not supported ends the process
 * with a message naming it, as the rest of the configuration does.
 */
export function startTracingFromEnv(defaultServiceName: string): void {
  let settings;
  try {
    settings = tracingSettingsFrom(process.env, defaultServiceName);
  } catch (err) {
    if (!(err instanceof TracingSettingsError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
  if (!settings) return;
  // Loaded here, not imported: off, the SDK is never read from disk.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  startTracing(settings);
}
