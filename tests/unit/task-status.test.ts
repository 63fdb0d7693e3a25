import { AppError } from '../../src/errors/app-error';
import { TASK_STATUSES, completeTask, setTaskStatus } from '../../src/domain/task-status';

const NOW = new Date('2030-05-06T07:08:09.010Z');
const EARLIER = new Date('2030-01-01T00:00:00.000Z');
const open = { status: 'OPEN', completedAt: null } as const;
const done = { status: 'DONE', completedAt: EARLIER } as const;

describe('task statuses', () => {
  it('are exactly OPEN and DONE', () => {
    expect(TASK_STATUSES).toEqual(['OPEN', 'DONE']);
  });
});

describe('setTaskStatus (tasks.update)', () => {
  it('stamps completedAt with now when an OPEN task is set DONE', () => {
    expect(setTaskStatus(open, 'DONE', NOW)).toEqual({ status: 'DONE', completedAt: NOW });
  });

  it('reopens a DONE task set OPEN and clears completedAt', () => {
    expect(setTaskStatus(done, 'OPEN', NOW)).toEqual({ status: 'OPEN', completedAt: null });
  });

  it('keeps the original completedAt when a DONE task is set DONE again', () => {
    expect(setTaskStatus(done, 'DONE', NOW)).toEqual(done);
  });

  it('leaves an OPEN task set OPEN as it is', () => {
    expect(setTaskStatus(open, 'OPEN', NOW)).toEqual(open);
  });
});

describe('completeTask (tasks.complete)', () => {
  it('moves an OPEN task to DONE, completed now', () => {
    expect(completeTask(open, NOW)).toEqual({ status: 'DONE', completedAt: NOW });
  });

  it('refuses a DONE task with a CONFLICT naming DONE and when it was completed', () => {
    let thrown: unknown;
    try {
      completeTask(done, NOW);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('CONFLICT');
    expect((thrown as AppError).message).toMatch(/already DONE \(completed at 2030-01-01T00:00:00.000Z\)/);
    expect((thrown as AppError).message).toMatch(/only an OPEN task moves to DONE/);
  });
});
