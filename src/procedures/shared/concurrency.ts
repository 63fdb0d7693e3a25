import { AppError } from '../../errors/app-error';
import { dateTimeField } from './format-fields';

/**
 * Optimistic concurrency for every `update`: the caller sends the `updatedAt` it last saw; if the
 * record changed since, nothing is written and the answer is 409, so two-way syncs never
 * silently overwrite each other.
 */
export const expectedUpdatedAtField = dateTimeField.optional();

export function assertUnchangedSince(label: string, current: Date, expected: Date | undefined): void {
  if (expected !== undefined && current.getTime() !== expected.getTime()) {
    throw new AppError(
      'CONFLICT',
      `The ${label} was changed at ${current.toISOString()}, after the expected ${expected.toISOString()}: read it again and retry`,
    );
  }
}
