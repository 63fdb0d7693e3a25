import request from 'supertest';
import superjson from 'superjson';
import type { Express } from 'express';

/** GET /api/v1/rpc/<name>, the input superjson-encoded as a superjson client sends it. */
export function rpcGet(app: Express, name: string, input: unknown, key: string | null) {
  let req = request(app).get(`/api/v1/rpc/${name}`);
  if (input !== undefined) req = req.query({ input: JSON.stringify(superjson.serialize(input)) });
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

/** POST /api/v1/rpc/<name> with the body `{"json": ..., "meta"?: ...}`. */
export function rpcPost(app: Express, name: string, input: unknown, key: string | null) {
  const req = request(app).post(`/api/v1/rpc/${name}`).set('Content-Type', 'application/json').send(JSON.stringify(superjson.serialize(input)));
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

/** The output of a successful call, Dates revived. */
export function resultOf<T = any>(res: { body: any }): T {
  return superjson.deserialize(res.body.result.data) as T;
}

/** The error of a failed call (its json part). */
export function errorOf(res: { body: any }): { message: string; code: number; data: { code: string; httpStatus: number; path?: string; issues?: { path: (string | number)[]; message: string }[] } } {
  return res.body.error.json;
}
