import { startTracingFromEnv } from './tracing-from-env';

// The webhook worker's first import (src/webhooks/worker-main.ts): as tracing-start.ts, under the worker's service name.
startTracingFromEnv('workspace-api-worker');
