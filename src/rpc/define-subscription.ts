import type { z } from 'zod';
import type { Scope, ProcedureContext } from './define-procedure';
import type { LiveFeeds } from '../live/live-feeds';

/**
 * What a subscription knows about its reader. Unlike a call's, the reader's scopes can change
 * while the stream is open (a key narrowed or revoked): `scopes()` answers the current ones, and
 * every value sent is checked against them when it is sent.
 */
export interface SubscriptionContext extends Omit<ProcedureContext, 'scopes' | 'effects' | 'call'> {
  scopes(): ReadonlySet<string>;
  /** The process's shared readers of what changes in each workspace. */
  live: LiveFeeds;
}

/** Where a subscription's values go; the route writes each as one Server-Sent Event. */
export interface SubscriptionSink<Value> {
  /** One value; `id` when the subscription is tracked (a resumed stream gives it back as `lastEventId`). */
  next(value: Value, id?: string): void;
  /** Ends the stream with an error (a 5xx-family code makes the official client resume). */
  error(err: unknown): void;
}

// `Name` keeps each subscription's name as a literal type, as a procedure's does.
export interface Subscription<Input extends z.ZodType = z.ZodType, Value extends z.ZodType = z.ZodType, Name extends string = string> {
  kind: 'subscription';
  /** `<router>.<procedure>`: served on GET as `text/event-stream` (tRPC's httpSubscriptionLink). */
  name: Name;
  /** A read scope: a subscription reads, and the same scope as the read it streams. */
  scope: Scope;
  exposed: boolean;
  description: string;
  /** Its input; a tracked subscription's takes `lastEventId` too (the route merges the resume point in, as tRPC does). */
  input: Input;
  /** One value of the stream (Dates as Dates), as a read's `output` is its answer. */
  output: Value;
  /** Other read scopes its values are narrowed by (what a stream token for it may carry beside `scope`). */
  readsWith?: readonly string[];
  /** Whether each value carries an id to resume from (an SSE `id:`). */
  tracked: boolean;
  /**
   * Checks what needs the database before the stream starts (an error thrown here is answered as
   * any call's, with its status), then starts sending to `sink`; answers how to stop, called once
   * when the stream ends for any reason.
   */
  open(args: { ctx: SubscriptionContext; input: z.output<Input>; sink: SubscriptionSink<z.input<Value>> }): Promise<() => void>;
}

/** Identity at run time; exists so each subscription file infers its input and value types. */
export function defineSubscription<Input extends z.ZodType, Value extends z.ZodType, const Name extends string>(
  subscription: Omit<Subscription<Input, Value, Name>, 'kind'>,
): Subscription<Input, Value, Name> {
  return { kind: 'subscription', ...subscription };
}
