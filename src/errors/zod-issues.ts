import type { z } from 'zod';
import { invalidInput, MAX_ISSUES, type AppError, type FieldIssue } from './app-error';

/**
 * Turns a zod failure into the one field-issue shape used by every endpoint. An unknown key is
 * reported at its own path ("pagesize: unknown field"), not as one issue on the parent object.
 * Only the first MAX_ISSUES are built (10,000 unknown keys are one zod issue); the rest are counted.
 */
export function fromZodError(error: z.ZodError): AppError {
  const issues: FieldIssue[] = [];
  let total = 0;
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const room = Math.max(0, MAX_ISSUES - issues.length);
    if (issue.code === 'unrecognized_keys') {
      issues.push(...issue.keys.slice(0, room).map((key) => ({ path: [...path, key], message: 'unknown field' })));
      total += issue.keys.length;
    } else {
      if (room > 0) issues.push({ path, message: issue.message });
      total += 1;
    }
  }
  return invalidInput(issues, total);
}
