import { startTracingFromEnv } from './tracing-from-env';

// The API's first import (src/index.ts): tracing, when the OTEL_* variables ask for it, must start
// before `http`, `pg` and `pino` are first required, since its instrumentations patch them as they load.
startTracingFromEnv('workspace-api');
