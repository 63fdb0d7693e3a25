import { outputMismatches } from './output-mismatches';

// Every answer the suite receives is checked against its output schema: a test during which one
// did not match fails here, even when it only looked at the status.
afterEach(() => {
  const found = outputMismatches.splice(0);
  if (found.length > 0) {
    throw new Error(`answers outside their output schema:\n${found.map((m) => `${m.procedure}: ${JSON.stringify(m.issues)}`).join('\n')}`);
  }
});
