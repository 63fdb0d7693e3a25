/** A background job of the serving process; `stop` cancels the next run and waits for one in progress. */
export interface PeriodicJob {
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` (after the previous run ends, so runs never overlap), first at
 * start when `runAtStart`. `run` is told whether to stop between its batches, and handles its own
 * failures: a failed run (database down, say) is simply tried again at the next interval.
 */
export function startPeriodicJob(options: { intervalMs: number; runAtStart: boolean; run(shouldStop: () => boolean): Promise<void> }): PeriodicJob {
  const { intervalMs, run } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const runNow = () => {
    running = run(() => stopped).finally(() => {
      running = undefined;
      schedule();
    });
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(runNow, intervalMs);
    // A job never keeps the process alive on its own.
    timer.unref();
  };
  if (options.runAtStart) runNow();
  else schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * A periodic job's usual run: `deleteBatch(batchSize)` again and again, each batch its own short
 * statement (no long lock), until one deletes fewer than `batchSize` rows or `shouldStop` says
 * so (checked before each batch); answers how many rows went.
 */
export async function deleteInBatches(
  deleteBatch: (batchSize: number) => Promise<number>, batchSize: number, shouldStop: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  while (!shouldStop()) {
    const count = await deleteBatch(batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
