import { z } from 'zod';
import request from 'supertest';
import type { Express } from 'express';
import type { Server } from 'node:http';
import type { Db } from '../../src/db/knex';
import { defineProcedure } from '../../src/rpc/define-procedure';
import { createRegistry, type Registry } from '../../src/rpc/registry';
import { AppError } from '../../src/errors/app-error';
import * as contacts from '../../src/db/contacts';

/** POST /api/v1/rpc/<name> with the exact body text given and an Idempotency-Key (unless null). */
export function postRaw(app: Express | Server, name: string, body: string, apiKey: string, idempotencyKey: string | null) {
  const req = request(app)
    .post(`/api/v1/rpc/${name}`)
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${apiKey}`);
  return (idempotencyKey === null ? req : req.set('Idempotency-Key', idempotencyKey)).send(body);
}

/** A plain-JSON envelope, as curl sends it. */
export function envelope(input: unknown): string {
  return JSON.stringify({ json: input });
}

export async function countRows(db: Db, table: 'leads' | 'contacts' | 'tasks', orgId: string): Promise<number> {
  const row = await db(table).where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

export async function storedKeys(db: Db, orgId: string) {
  return db('idempotency_keys')
    .select('principal_id', 'idempotency_key', 'procedure', 'response_status', 'response_body', 'created_at', 'expires_at')
    .where({ org_id: orgId })
    .orderBy('created_at');
}

/** Makes a stored key look 24 hours old, as a later retry would find it. */
export async function expireKey(db: Db, orgId: string, key: string): Promise<void> {
  const updated = await db('idempotency_keys')
    .where({ org_id: orgId, idempotency_key: key })
    .update({ expires_at: db.raw("now() - interval '1 second'") });
  expect(updated).toBe(1);
}

/** Holds a handler until the test lets it go, and says when it got there. */
export class Gate {
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  private enter!: (pid: number) => void;
  /** Resolves with the handler's backend pid once the handler is waiting at the gate. */
  readonly entered = new Promise<number>((resolve) => (this.enter = resolve));

  arrive(pid: number): Promise<void> {
    this.enter(pid);
    return this.opened;
  }

  open(): void {
    this.release();
  }
}

/**
 * Test-only write procedures for what the real registry cannot show on demand: a handler that
 * wrote and then refused (its writes must roll back while its 409 is stored), one that fails
 * unexpectedly (never stored), and one that waits at a gate while in flight. Each creates a
 * contact named by the input, so the effect can be counted.
 */
export function createIdempotencyRegistry() {
  const calls = { writeThenRefuse: 0, explode: 0, gated: 0 };
  let gate: Gate | undefined;
  const input = z.strictObject({ name: z.string().min(1) });
  const addContact = (db: Db, orgId: string, name: string) => contacts.insert(db, orgId, { name, phones: [], emails: [], company: null });
  const registry: Registry = createRegistry([
    defineProcedure({
      name: 'idem.writeThenRefuse',
      method: 'POST',
      scope: 'contacts.create',
      exposed: true,
      description: 'creates a contact, then answers 409',
      input,
      output: z.unknown(),
      async handler({ ctx, input: { name } }): Promise<never> {
        calls.writeThenRefuse += 1;
        await addContact(ctx.db, ctx.orgId, name);
        throw new AppError('CONFLICT', `refused after writing ${name}`);
      },
    }),
    defineProcedure({
      name: 'idem.explode',
      method: 'POST',
      scope: 'contacts.create',
      exposed: true,
      description: 'creates a contact, then fails unexpectedly',
      input,
      output: z.unknown(),
      async handler({ ctx, input: { name } }): Promise<never> {
        calls.explode += 1;
        await addContact(ctx.db, ctx.orgId, name);
        throw new Error('unexpected');
      },
    }),
    defineProcedure({
      name: 'idem.gated',
      method: 'POST',
      scope: 'contacts.create',
      exposed: true,
      description: 'waits at the gate (when one is set), then creates a contact',
      input,
      output: z.unknown(),
      async handler({ ctx, input: { name } }) {
        calls.gated += 1;
        if (gate) {
          const { rows } = await ctx.db.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
          await gate.arrive(rows[0]!.pid);
        }
        return { id: (await addContact(ctx.db, ctx.orgId, name)).id };
      },
    }),
  ]);
  return {
    registry,
    calls,
    /** The next call of idem.gated waits at a new gate. */
    nextGate(): Gate {
      gate = new Gate();
      return gate;
    },
    clearGate(): void {
      gate = undefined;
    },
  };
}
