import {
  CALL_OUTCOMES,
  INITIAL_LEAD_STATUSES,
  LEAD_STATUSES,
  assertCallCanBeLogged,
  assertCanConvert,
  assertStatusChangeAllowed,
} from '../../src/domain/lead-status';
import { AppError } from '../../src/errors/app-error';

const OPEN = LEAD_STATUSES.filter((s) => s !== 'CONVERTED');

function conflictOf(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('CONFLICT');
    return (err as AppError).message;
  }
  throw new Error('expected a CONFLICT');
}

describe('lead status rules', () => {
  it('lets every status but CONVERTED start a lead', () => {
    expect([...INITIAL_LEAD_STATUSES].sort()).toEqual([...OPEN].sort());
  });

  it('allows every move between statuses other than CONVERTED, and staying put', () => {
    for (const from of OPEN) for (const to of OPEN) expect(() => assertStatusChangeAllowed(from, to)).not.toThrow();
    expect(() => assertStatusChangeAllowed('CONVERTED', 'CONVERTED')).not.toThrow();
  });

  it.each(OPEN)('refuses setting %s to CONVERTED, naming both states', (from) => {
    expect(conflictOf(() => assertStatusChangeAllowed(from, 'CONVERTED'))).toMatch(`from ${from} to CONVERTED`);
  });

  it.each(OPEN)('refuses moving CONVERTED to %s, naming both states', (to) => {
    expect(conflictOf(() => assertStatusChangeAllowed('CONVERTED', to))).toMatch(`from CONVERTED to ${to}`);
  });
});

describe('call outcome rules', () => {
  it('has six outcomes, each a lead status other than CONVERTED', () => {
    expect(CALL_OUTCOMES).toHaveLength(6);
    for (const outcome of CALL_OUTCOMES) expect(OPEN).toContain(outcome);
  });

  it('logs any outcome on a lead in any status but CONVERTED', () => {
    for (const from of OPEN) for (const outcome of CALL_OUTCOMES) expect(() => assertCallCanBeLogged(from, outcome)).not.toThrow();
  });

  it.each(CALL_OUTCOMES)('refuses logging %s on a CONVERTED lead, naming both states', (outcome) => {
    expect(conflictOf(() => assertCallCanBeLogged('CONVERTED', outcome))).toMatch(`from CONVERTED to ${outcome}`);
  });
});

describe('conversion rules', () => {
  it('converts a lead in any status but CONVERTED', () => {
    for (const from of OPEN) expect(() => assertCanConvert(from)).not.toThrow();
  });

  it('refuses converting a CONVERTED lead again', () => {
    expect(conflictOf(() => assertCanConvert('CONVERTED'))).toBe('Cannot move a lead from CONVERTED to CONVERTED: it is already converted');
  });
});
