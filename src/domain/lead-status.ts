import { AppError } from '../errors/app-error';

export const LEAD_STATUSES = [
  'NOT_CONTACTED',
  'CONTACTED',
  'QUALIFIED',
  'CONVERTED',
  'LOST',
  'NO_ANSWER',
  'BUSY',
  'SWITCHED_OFF',
  'OUT_OF_SERVICE',
  'WRONG_NUMBER',
] as const;

export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A new lead starts in any status but CONVERTED, which only converting a lead reaches. */
export const INITIAL_LEAD_STATUSES = LEAD_STATUSES.filter((s) => s !== 'CONVERTED') as Exclude<LeadStatus, 'CONVERTED'>[];

/**
 * The lead transition rules, in one place (docs/errors-and-limits.md, "Lead status transitions"):
 * CONVERTED is final and is reached only by converting the lead (never by setting the status);
 * any other status may move to any other.
 */
export function assertStatusChangeAllowed(from: LeadStatus, to: LeadStatus): void {
  if (from === to) return;
  if (from === 'CONVERTED') {
    throw new AppError('CONFLICT', `Cannot move a lead from CONVERTED to ${to}: CONVERTED is final`);
  }
  if (to === 'CONVERTED') {
    throw new AppError('CONFLICT', `Cannot move a lead from ${from} to CONVERTED by setting its status: convert the lead instead`);
  }
}

/** What a logged call attempt can come to; logging one moves the lead to that status. */
export const CALL_OUTCOMES = ['CONTACTED', 'NO_ANSWER', 'BUSY', 'SWITCHED_OFF', 'OUT_OF_SERVICE', 'WRONG_NUMBER'] as const;

export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Logging a call sets the lead's status to its outcome, so it follows the same rule as any move. */
export function assertCallCanBeLogged(from: LeadStatus, outcome: CallOutcome): void {
  if (from === 'CONVERTED') {
    throw new AppError('CONFLICT', `Cannot log a call on a CONVERTED lead: it would move from CONVERTED to ${outcome}, and CONVERTED is final`);
  }
  assertStatusChangeAllowed(from, outcome);
}

/** Converting is the one way into CONVERTED, from any other status, once. */
export function assertCanConvert(from: LeadStatus): void {
  if (from === 'CONVERTED') {
    throw new AppError('CONFLICT', 'Cannot move a lead from CONVERTED to CONVERTED: it is already converted');
  }
}
