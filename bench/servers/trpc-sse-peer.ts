import { on, EventEmitter } from 'node:events';
import express from 'express';
import pg from 'pg';
import superjson from 'superjson';
import { z } from 'zod';
import { initTRPC, tracked, TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import * as leads from '../../src/db/leads';
import * as apiKeysQueries from '../../src/db/api-keys';
import * as eventsQueries from '../../src/db/events';
import type { EventPosition, PlacedEvent } from '../../src/db/events';
import { hashApiKeySecret } from '../../src/domain/api-key-secret';
import { isEventType, scopeOfEventType } from '../../src/events/event-types';
import { serverSetup } from './server-env';

// The peer for live updates (bench/subscriptions.ts): tRPC v11's own SSE through its express
// adapter with superjson, serving `events.onEvent` at the service's path, so one client drives
// both. Its feeds are built as the service's are, so the comparison is of the streaming: one
// shared read per workspace per wake-up (the service's readAfter query), woken by LISTEN on the
// service's channel, every follower fed from it through an EventEmitter as tRPC's docs show
// (`on(ee, ...)` in the async generator), each value yielded as `tracked(id, event)`.
// Authentication: an API key, its hash looked up once and kept (no expiry, no revocation, no
// re-check of open streams), the `events.read` scope and each event type's read scope checked.
// PING_MS: tRPC's ping (off unless set), as the service's is set for the run.
const { db, hotReads, port, host } = serverSetup();
const url = process.env.DATABASE_URL!;
const pingMs = Number(process.env.PING_MS ?? 0);
const PAGE = 500;
const POLL_MS = 10_000;

interface Context {
  authorization: string | undefined;
}

interface Key {
  orgId: string;
  scopes: ReadonlySet<string>;
}
const keys = new Map<string, Promise<Key | undefined>>();

async function authenticate(authorization: string | undefined): Promise<Key> {
  const secret = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (!secret) throw new TRPCError({ code: 'UNAUTHORIZED' });
  const hash = hashApiKeySecret(secret);
  let found = keys.get(hash);
  if (!found) {
    found = apiKeysQueries.findForAuth(db, hash).then((key) => key && !key.revokedAt ? { orgId: key.orgId, scopes: new Set(key.scopes) } : undefined);
    keys.set(hash, found);
  }
  const key = await found;
  if (!key) throw new TRPCError({ code: 'UNAUTHORIZED' });
  return key;
}

interface Feed {
  position: EventPosition;
  followers: number;
  emitter: EventEmitter;
  reading: boolean;
  again: boolean;
  retryMs: number;
  retry: NodeJS.Timeout | undefined;
  poll: NodeJS.Timeout;
}

const feeds = new Map<string, Promise<Feed>>();

async function feedOf(orgId: string): Promise<Feed> {
  let feed = feeds.get(orgId);
  if (!feed) {
    feed = eventsQueries.currentPosition(db).then((position) => {
      const opened: Feed = {
        position, followers: 0, emitter: new EventEmitter().setMaxListeners(0), reading: false, again: false, retryMs: 10, retry: undefined,
        poll: setInterval(() => void read(orgId, opened), POLL_MS * (0.75 + Math.random() / 2)).unref(),
      };
      return opened;
    });
    feeds.set(orgId, feed);
  }
  return feed;
}

/** One read per wake-up for all the workspace's followers; events held back behind an open transaction are read again soon. */
async function read(orgId: string, feed: Feed): Promise<void> {
  if (feed.reading) {
    feed.again = true;
    return;
  }
  feed.reading = true;
  clearTimeout(feed.retry);
  let heldBack = false;
  try {
    do {
      feed.again = false;
      let page;
      do {
        page = await eventsQueries.readAfter(db, orgId, feed.position, PAGE);
        if (page.entries.length > 0) {
          feed.position = page.entries.at(-1)!.position;
          feed.emitter.emit('events', page.entries);
        }
      } while (page.more);
      heldBack = page.heldBack;
    } while (feed.again);
    if (!heldBack) feed.retryMs = 10;
  } catch (err) {
    process.stderr.write(`peer: read failed: ${(err as Error).message}\n`);
    heldBack = true;
  } finally {
    feed.reading = false;
  }
  if (heldBack && feed.followers > 0) {
    feed.retry = setTimeout(() => void read(orgId, feed), feed.retryMs);
    feed.retryMs = Math.min(1000, feed.retryMs * 2);
  }
}

async function listen(): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'trpc-sse-peer listener' });
  client.on('error', (err) => {
    process.stderr.write(`peer: LISTEN connection lost: ${err.message}\n`);
    process.exit(1);
  });
  client.on('notification', ({ payload }) => {
    let orgs: unknown;
    try {
      orgs = (JSON.parse(payload ?? '') as { orgs?: unknown }).orgs;
    } catch {
      orgs = undefined;
    }
    const woken = Array.isArray(orgs) ? orgs.filter((id): id is string => typeof id === 'string') : [...feeds.keys()];
    for (const orgId of woken) void feeds.get(orgId)?.then((feed) => read(orgId, feed));
  });
  await client.connect();
  await client.query('listen workspace_changes');
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  sse: pingMs > 0 ? { ping: { enabled: true, intervalMs: pingMs }, client: { reconnectAfterInactivityMs: pingMs * 3 } } : {},
});

/** As a tRPC user would check a key: a middleware (tRPC answers its refusal inside the stream, a `serialized-error` after `connected`). */
const authenticated = t.procedure.use(async ({ ctx, next }) => next({ ctx: await authenticate(ctx.authorization) }));

const router = t.router({
  events: t.router({
    onEvent: authenticated
      .input(z.object({ types: z.array(z.string().refine(isEventType)).min(1).optional(), lastEventId: z.string().nullish() }).optional())
      .subscription(async function* onEvent({ ctx, input, signal }) {
        const { orgId, scopes } = ctx;
        if (!scopes.has('events.read')) throw new TRPCError({ code: 'FORBIDDEN' });
        const types = input?.types && new Set<string>(input.types);
        const feed = await feedOf(orgId);
        // Registered before the catch-up, so what the feed reads meanwhile waits in the iterator.
        const live = on(feed.emitter, 'events', { signal });
        feed.followers += 1;
        try {
          let position = await eventsQueries.currentPosition(db);
          if (input?.lastEventId) {
            const from = await eventsQueries.positionOf(db, orgId, input.lastEventId);
            if (!from) throw new TRPCError({ code: 'NOT_FOUND' });
            position = from;
            let page;
            do {
              page = await eventsQueries.readAfter(db, orgId, position, PAGE);
              for (const { event, position: at } of page.entries) {
                position = at;
                if (sendable(event.type)) yield tracked(event.id, event);
              }
            } while (page.more);
          }
          for await (const [entries] of live as AsyncIterable<[PlacedEvent[]]>) {
            for (const { event, position: at } of entries) {
              if (!eventsQueries.isAfter(at, position)) continue;
              position = at;
              if (sendable(event.type)) yield tracked(event.id, event);
            }
          }
        } finally {
          feed.followers -= 1;
        }

        function sendable(type: string): boolean {
          return (!types || types.has(type)) && isEventType(type) && scopes.has(scopeOfEventType(type));
        }
      }),
  }),
  leads: t.router({
    getById: t.procedure.input(z.object({ orgId: z.string(), id: z.string() })).query(async ({ input }) => {
      const lead = await leads.getById(db, hotReads, input.orgId, input.id);
      if (!lead) throw new TRPCError({ code: 'NOT_FOUND' });
      return lead;
    }),
  }),
});

async function main(): Promise<void> {
  await listen();
  const app = express();
  app.use('/api/v1/rpc', createExpressMiddleware({ router, createContext: ({ req }) => ({ authorization: req.headers.authorization }) }));
  app.listen(port, host);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
