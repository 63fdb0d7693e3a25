import { formatSeconds, seedBulkReporter } from '../../src/cli/seed-progress';

/** A stream that keeps what is written, a terminal or not. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, columns: 120, write: (text: string) => void written.push(text), on: () => undefined, removeListener: () => undefined };
}

describe('seedBulkReporter without a terminal', () => {
  it('prints the load at most every 2 s, with its ETA, then a final line; no carriage return, no colour', () => {
    let now = 0;
    const err = stream(false);
    const reporter = seedBulkReporter(err, { tty: false, now: () => now });

    reporter.onPhase({ phase: 'load', state: 'start', leads: 1000, members: 5, batches: 10, concurrency: 2 });
    reporter.onProgress(0, 1000);
    for (const [at, done] of [[500, 100], [1500, 200], [2100, 300], [3000, 400], [4200, 500], [5000, 600], [9000, 900]] as const) {
      now = at;
      reporter.onProgress(done, 1000);
    }
    now = 10_000;
    reporter.onProgress(1000, 1000);
    reporter.onPhase({ phase: 'load', state: 'end', seconds: 10, leads: 1000, failed: false });

    expect(err.written).toEqual([
      '[0.0s] load: 1000 leads in 10 batches, 2 at a time, assigned among 5 members\n',
      '[2.1s] load: 300/1000 leads (30%), 2.1s elapsed, ETA 4.9s\n',
      '[4.2s] load: 500/1000 leads (50%), 4.2s elapsed, ETA 4.2s\n',
      '[9.0s] load: 900/1000 leads (90%), 9.0s elapsed, ETA 1.0s\n',
      '[10.0s] load: loaded 1000 leads in 10.0s\n',
    ]);
  });

  it('prints a line as each later phase starts and ends, and as each index build starts', () => {
    let now = 0;
    const err = stream(false);
    const reporter = seedBulkReporter(err, { tty: false, now: () => now });

    reporter.onPhase({ phase: 'indexes', state: 'start', dropped: ['leads_a_idx', 'leads_b_idx'] });
    reporter.onPhase({ phase: 'indexes', state: 'index', name: 'leads_b_idx', position: 1, of: 2 });
    now = 30_000;
    reporter.onPhase({ phase: 'indexes', state: 'index', name: 'leads_a_idx', position: 2, of: 2 });
    now = 65_000;
    reporter.onPhase({ phase: 'indexes', state: 'end', seconds: 65, built: ['leads_a_idx', 'leads_b_idx'] });
    reporter.onPhase({ phase: 'counters', state: 'start' });
    reporter.onPhase({ phase: 'counters', state: 'end', seconds: 0.1, folded: 1 });
    reporter.onPhase({ phase: 'vacuum', state: 'start', tables: ['leads', 'contacts'] });
    now = 70_000;
    reporter.onPhase({ phase: 'vacuum', state: 'end', seconds: 5 });

    expect(err.written.join('')).toBe([
      '[0.0s] indexes: building again the 2 indexes dropped for the load (leads_a_idx, leads_b_idx)',
      '[0.0s] indexes: index 1 of 2: leads_b_idx',
      '[30.0s] indexes: index 2 of 2: leads_a_idx',
      '[1m05s] indexes: built 2 indexes in 1m05s',
      '[1m05s] counters: folding the shards the batches added',
      '[1m05s] counters: folded 1 row in 0.1s',
      '[1m05s] vacuum: VACUUM (ANALYZE) leads, contacts',
      '[1m10s] vacuum: done in 5.0s',
      '',
    ].join('\n'));
  });

  it('says how far a failed load got', () => {
    const err = stream(false);
    const reporter = seedBulkReporter(err, { tty: false, now: () => 1500 });

    reporter.onPhase({ phase: 'load', state: 'end', seconds: 1.5, leads: 100, failed: true });

    expect(err.written).toEqual(['[0.0s] load: stopped by a failed batch after 100 leads, 1.5s\n']);
  });
});

describe('seedBulkReporter on a terminal', () => {
  it('draws the load as a redrawn cli-progress bar with the ETA, and stops it before the next line', () => {
    const err = stream(true);
    const reporter = seedBulkReporter(err, { tty: true });

    reporter.onPhase({ phase: 'load', state: 'start', leads: 1000, members: 5, batches: 10, concurrency: 2 });
    reporter.onProgress(0, 1000);
    reporter.onProgress(500, 1000);
    reporter.onPhase({ phase: 'load', state: 'end', seconds: 1, leads: 1000, failed: false });
    reporter.stop();

    const output = err.written.join('');
    expect(output).toMatch(/load \[#{0,30}\.{0,30}\] \d+\/1000 leads \(\d+%\), [0-9.]+s elapsed, ETA /);
    expect(output).toContain('\u001b[');
    expect(err.written[err.written.length - 1]).toMatch(/^\[[0-9.]+s\] load: loaded 1000 leads in 1\.0s\n$/);
  });
});

describe('formatSeconds', () => {
  it('answers tenths under a minute, then minutes and hours, and ? for an unknown time', () => {
    expect([formatSeconds(4.24), formatSeconds(187), formatSeconds(3720), formatSeconds(Number.NaN)]).toEqual(['4.2s', '3m07s', '1h02m', '?']);
  });
});
