import { onNode, type DatabaseNodes } from '../db/nodes';
import { AppError } from '../errors/app-error';
import { assertMaximumTier, assertScope, type Principal } from '../auth/principal';
import type { Logger } from '../logger';

/** What this module does to a stream's connection (src/http/event-stream.ts frames it). */
export interface StreamConnection {
  readonly isEnded: boolean;
  /** When a frame was last written: a ping is due only after a quiet interval. */
  readonly lastWriteAt: number;
  ping(): void;
  /** Ends with the error the client is shown. */
  error(error: AppError): void;
  /** Ends without a word, as a dropped connection: the client reconnects and resumes. */
  close(): void;
}

/** Any change to keys, members or workspaces (the key caches' invalidation): every open stream is re-checked at once. */
export interface CredentialChanges {
  subscribe(onChange: () => void): () => void;
}

/** One open subscription, as the process keeps it to ping, re-check and end it. */
export interface OpenStream {
  stream: StreamConnection;
  /** Streams opened with one credential are re-checked together, with one authentication. */
  credential: string;
  /** Authenticates the credential again, as now (revoked, expired or narrowed). */
  recheck(): Promise<Principal>;
  /** The subscription's scope: a reader that loses it is ended with a 403. */
  scope: string;
  /** Read by the subscription for each value sent: the scopes of the last check. */
  principal: Principal;
  /** Stops the subscription's reading; called once when the stream ends. */
  stop(): void;
  /** When it is ended to rotate (sse max duration); Infinity when never. */
  rotateAt: number;
}

export interface StreamSettings {
  /** A ping after this long without a frame (keeps proxies and the client's inactivity timer content). */
  pingMs: number;
  /** Streams are ended after about this long, so clients reconnect (and spread) elsewhere; 0: never. */
  maxDurationMs: number;
  /** Every open stream's credential is checked again this often (and at once on a key or member change). */
  recheckMs: number;
}

export interface OpenStreams {
  add(open: OpenStream): () => void;
  size(): number;
  /** Ends every stream as a dropped connection would, so clients reconnect to another instance and resume. */
  closeAll(): void;
  stop(): void;
}

export function createOpenStreams(settings: StreamSettings, deps: { credentialChanges?: CredentialChanges; logger: Logger; nodes?: DatabaseNodes }): OpenStreams {
  const streams = new Set<OpenStream>();
  let checking = false;
  let checkAgain = false;

  // The rounds run only while a stream is open: an idle instance keeps no timer, and an app
  // dropped without stop() (a test's) leaves nothing behind that holds it.
  let timers: { ping: NodeJS.Timeout; recheck: NodeJS.Timeout } | undefined;
  function startRounds(): void {
    timers ??= {
      ping: setInterval(() => {
        const now = Date.now();
        for (const open of streams) {
          if (open.stream.isEnded) end(open);
          else if (now >= open.rotateAt) end(open, () => open.stream.close());
          else if (now - open.stream.lastWriteAt >= settings.pingMs) open.stream.ping();
        }
      }, Math.min(1000, settings.pingMs / 2)).unref(),
      recheck: setInterval(() => void recheckAll(), settings.recheckMs).unref(),
    };
  }
  function stopRounds(): void {
    if (!timers) return;
    clearInterval(timers.ping);
    clearInterval(timers.recheck);
    timers = undefined;
  }
  // A key or member change announced by any instance is checked now, not at the next round.
  const unsubscribe = deps.credentialChanges?.subscribe(() => void recheckAll());

  function end(open: OpenStream, how?: () => void): void {
    if (!streams.delete(open)) return;
    if (streams.size === 0) stopRounds();
    open.stop();
    how?.();
  }

  async function recheckAll(): Promise<void> {
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    try {
      do {
        checkAgain = false;
        const byCredential = new Map<string, OpenStream[]>();
        for (const open of streams) {
          const group = byCredential.get(open.credential);
          if (group) group.push(open);
          else byCredential.set(open.credential, [open]);
        }
        await Promise.all([...byCredential.values()].map(recheckGroup));
      } while (checkAgain);
    } finally {
      checking = false;
    }
  }

  async function recheckGroup(group: OpenStream[]): Promise<void> {
    let principal: Principal;
    try {
      const first = group[0]!;
      principal = await onNode(deps.nodes, first.principal.orgId, () => first.recheck());
      assertMaximumTier(principal);
    } catch (err) {
      // Only a verdict on the credential ends its streams; a database that cannot answer now does not.
      if (!(err instanceof AppError) || (err.code !== 'UNAUTHORIZED' && err.code !== 'FORBIDDEN')) return;
      for (const open of group) end(open, () => open.stream.error(err));
      return;
    }
    for (const open of group) {
      try {
        assertScope(principal, open.scope);
      } catch (err) {
        end(open, () => open.stream.error(err as AppError));
        continue;
      }
      open.principal = principal;
    }
  }

  return {
    add(open) {
      streams.add(open);
      startRounds();
      return () => end(open);
    },
    size: () => streams.size,
    closeAll() {
      for (const open of [...streams]) end(open, () => open.stream.close());
    },
    stop() {
      stopRounds();
      unsubscribe?.();
    },
  };
}

/** When a stream opened now is rotated: spread over the last tenth of the duration, so a restart's reconnections do not all rotate together. */
export function rotationTime(maxDurationMs: number, now = Date.now()): number {
  return maxDurationMs > 0 ? now + maxDurationMs * (0.9 + Math.random() * 0.1) : Infinity;
}
