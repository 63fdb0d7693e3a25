/**
 * Answers outside their procedure's output schema, as the in-process apps of this test file saw
 * them (CHECK_OUTPUTS is on in every test app). tests/helpers/fail-on-output-mismatch.ts fails
 * the test during which one was recorded; a spawned server answers 500 instead.
 */
export const outputMismatches: { procedure: string; issues: unknown }[] = [];

export function recordOutputMismatch(procedure: string, issues: unknown): void {
  outputMismatches.push({ procedure, issues });
}
