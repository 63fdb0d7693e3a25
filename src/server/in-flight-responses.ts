import type { ServerResponse } from 'node:http';

/**
 * The answers a server has in flight, so that a drain can reach them. Each answer takes a slot
 * until its 'close' event, and freed slots are reused: the array is as long as the most answers
 * ever in flight at once, and a slot holds nothing once its answer has closed.
 *
 * Not a Set. V8 replaces a Set's table as entries come and go, and each table it drops keeps a link
 * to its successor and its own entries. Once one dropped table had reached old space, every later
 * table and every answer listed in it outlived the young generation and was promoted: under
 * start:prod's --heap-growing-percent, whose frequent mark-compacts put tables there, 8.5 KB of
 * each getById and 9 KB of each list page, and 43 µs of a getById's CPU at 800 req/s
 * (bench/gc-survival.ts; docs/performance.md, "In-flight answers in reused slots").
 */
export interface InFlightResponses {
  /** Holds `res` until it closes (finished, or its connection gone). */
  add(res: ServerResponse): void;
  readonly size: number;
  /** Slots in use or free: the most answers that were ever in flight at once. */
  readonly capacity: number;
  forEach(visit: (res: ServerResponse) => void): void;
}

export function createInFlightResponses(): InFlightResponses {
  const slots: (ServerResponse | undefined)[] = [];
  /** Indexes of empty slots, the most recently freed last. */
  const free: number[] = [];

  function release(slot: number, res: ServerResponse): void {
    // 'close' comes once per answer; the check keeps a second one from freeing a reused slot.
    if (slots[slot] !== res) return;
    slots[slot] = undefined;
    free.push(slot);
  }

  return {
    add(res) {
      const slot = free.pop() ?? slots.length;
      slots[slot] = res;
      res.on('close', () => release(slot, res));
    },
    get size() {
      return slots.length - free.length;
    },
    get capacity() {
      return slots.length;
    },
    forEach(visit) {
      for (const res of slots) if (res !== undefined) visit(res);
    },
  };
}
