import type { z } from 'zod';
import { invalidInput, MAX_ISSUES, type AppError, type FieldIssue } from './app-error';

/**
 * A zod failure in the one field-issue shape used by every endpoint: the first MAX_ISSUES issues,
 * and how many there were. An unknown key is reported at its own path ("pagesize: unknown field"),
 * with the fields the object takes when its schema says them (the field builders' objects do:
 * their message for unknown keys starts "expected"), not as one issue on the parent object. Only
 * the first MAX_ISSUES are built (10,000 unknown keys are one zod issue); the rest are counted.
 */
export function zodFieldIssues(error: z.ZodError): { issues: FieldIssue[]; total: number } {
  const issues: FieldIssue[] = [];
  let total = 0;
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const room = Math.max(0, MAX_ISSUES - issues.length);
    if (issue.code === 'unrecognized_keys') {
      const message = issue.message.startsWith('expected ') ? `unknown field; ${issue.message}` : 'unknown field';
      issues.push(...issue.keys.slice(0, room).map((key) => ({ path: [...path, key], message })));
      total += issue.keys.length;
    } else {
      if (room > 0) issues.push({ path, message: issue.message });
      total += 1;
    }
  }
  return { issues, total };
}

/** The 400 for a zod failure: every issue (up to the cap), one answer. */
export function fromZodError(error: z.ZodError): AppError {
  const { issues, total } = zodFieldIssues(error);
  return invalidInput(issues, total);
}
