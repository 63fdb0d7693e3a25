import type { z } from 'zod';
import { invalidInput, type AppError, type FieldIssue } from './app-error';

/**
 * Turns a zod failure into the one field-issue shape used by every endpoint. An unknown key is
 * reported at its own path ("pagesize: unknown field"), not as one issue on the parent object.
 */
export function fromZodError(error: z.ZodError): AppError {
  const issues: FieldIssue[] = error.issues.flatMap((issue) => {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: 'unknown field' }));
    }
    return [{ path, message: issue.message }];
  });
  return invalidInput(issues);
}
