import { Format, SingleBar } from 'cli-progress';
import type { CliStream } from './command';
import type { SeedBulkPhaseEvent } from './seed-bulk';

export interface SeedBulkReporter {
  onPhase(event: SeedBulkPhaseEvent): void;
  onProgress(done: number, total: number): void;
  /** Stops a bar still drawn (a failed load); safe to call twice. */
  stop(): void;
}

export interface SeedBulkReporterOptions {
  /** A terminal gets a redrawn bar; anything else plain lines, at most one per `intervalMs` for the load. */
  tty: boolean;
  intervalMs?: number;
  now?: () => number;
}

/**
 * Renders a bulk load's phases on `err`: a line as each starts and ends, with the time since the
 * command started, and the load's progress with an ETA. On a terminal the load is a cli-progress
 * bar; elsewhere (a log file, CI) plain lines with no carriage return and no colour.
 */
export function seedBulkReporter(err: CliStream, options: SeedBulkReporterOptions): SeedBulkReporter {
  const now = options.now ?? (() => performance.now());
  const intervalMs = options.intervalMs ?? 2000;
  const started = now();
  let bar: SingleBar | undefined;
  let loadStarted = started;
  let lastLine = -Infinity;
  const line = (text: string) => {
    bar?.stop();
    bar = undefined;
    err.write(`[${formatSeconds((now() - started) / 1000)}] ${text}\n`);
  };
  return {
    onPhase(event) {
      const text = describePhase(event);
      if (text) line(text);
      if (event.phase === 'load' && event.state === 'start') {
        loadStarted = now();
        lastLine = loadStarted;
        if (options.tty) {
          bar = new SingleBar({
            stream: err as NodeJS.WritableStream,
            // The same words as the plain lines; cli-progress's own ETA reads "NULL" until its buffer fills.
            format: (barOptions, params) =>
              `  load [${Format.BarFormat(params.progress, barOptions)}] ${loadProgress(params.value, params.total, (Date.now() - params.startTime) / 1000)}`,
            barCompleteChar: '#',
            barIncompleteChar: '.',
            barsize: 30,
            hideCursor: true,
          });
          bar.start(event.leads, 0);
        }
      }
    },
    onProgress(done, total) {
      if (bar) {
        bar.update(done);
        return;
      }
      const at = now();
      // The load's end event gives the final line.
      if (options.tty || done === 0 || done >= total || at - lastLine < intervalMs) return;
      lastLine = at;
      line(`load: ${loadProgress(done, total, (at - loadStarted) / 1000)}`);
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** `50000/150000 leads (33%), 3.5s elapsed, ETA 7.0s`: the ETA assumes the rest goes as fast as the part done. */
function loadProgress(done: number, total: number, elapsedSeconds: number): string {
  const eta = done > 0 ? (elapsedSeconds / done) * (total - done) : Number.NaN;
  return `${done}/${total} leads (${Math.floor((done / total) * 100)}%), ${formatSeconds(elapsedSeconds)} elapsed, ETA ${formatSeconds(eta)}`;
}

function describePhase(event: SeedBulkPhaseEvent): string | undefined {
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  switch (event.phase) {
    case 'prepare':
      if (event.state === 'start') return `prepare: workspace ${event.orgId}`;
      return `prepare: done in ${formatSeconds(event.seconds)}${event.membersAdded ? `, added ${plural(event.membersAdded, 'member')}` : ''}${event.indexesRebuilt.length ? `, built ${plural(event.indexesRebuilt.length, 'index', 'indexes')} an interrupted load left dropped (${event.indexesRebuilt.join(', ')})` : ''}`;
    case 'load':
      if (event.state === 'start') return `load: ${event.leads} leads in ${plural(event.batches, 'batch', 'batches')}, ${event.concurrency} at a time, assigned among ${plural(event.members, 'member')}`;
      return event.failed ? `load: stopped by a failed batch after ${event.leads} leads, ${formatSeconds(event.seconds)}` : `load: loaded ${event.leads} leads in ${formatSeconds(event.seconds)}`;
    case 'indexes':
      if (event.state === 'start') {
        return event.dropped.length
          ? `indexes: building again the ${plural(event.dropped.length, 'index', 'indexes')} dropped for the load (${event.dropped.join(', ')})`
          : 'indexes: none dropped for the load (every row went through them)';
      }
      if (event.state === 'index') return `indexes: index ${event.position} of ${event.of}: ${event.name}`;
      return `indexes: ${event.built.length ? `built ${plural(event.built.length, 'index', 'indexes')}` : 'none to build'} in ${formatSeconds(event.seconds)}`;
    case 'counters':
      return event.state === 'start' ? 'counters: folding the shards the batches added' : `counters: folded ${plural(event.folded, 'row')} in ${formatSeconds(event.seconds)}`;
    case 'vacuum':
      return event.state === 'start' ? `vacuum: VACUUM (ANALYZE) ${event.tables.join(', ')}` : `vacuum: done in ${formatSeconds(event.seconds)}`;
  }
}

/** 4.2s, 3m07s, 1h02m. */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

/** A one-line progress bar for a terminal (redrawn with \r), or a line per tenth otherwise. */
export function progressBar(out: { write(text: string): unknown }, isTty: boolean): (done: number, total: number) => void {
  const started = performance.now();
  let lastTenth = -1;
  return (done, total) => {
    const share = total === 0 ? 1 : done / total;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const line = `[${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}] ${done}/${total} leads ${seconds}s`;
    if (isTty) {
      out.write(`\r${line}${done === total ? '\n' : ''}`);
    } else if (Math.floor(share * 10) > lastTenth) {
      lastTenth = Math.floor(share * 10);
      out.write(`${line}\n`);
    }
  };
}
