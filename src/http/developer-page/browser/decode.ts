/**
 * Reads a superjson payload as the typed client would (the paths its meta lists as "Date" become
 * Date objects) and renders it with Dates shown as Date(ISO). The meta's grammar is superjson 2's,
 * as src/rpc/superjson-meta.ts reads it: `values` is `[annotation, {path: tree}?]` for a node that
 * is transformed, or `{path: tree}` of the nodes below one that is not.
 */
import { el } from './dom';

type Tree = [annotation: unknown, children?: Record<string, Tree>];
type Values = Tree | Record<string, Tree>;

export interface SuperJsonPayload {
  json: unknown;
  meta?: { values?: Values };
}

// superjson's meta lists the paths of values JSON cannot carry; "a.b\.c" escapes a dot in a key.
function parsePath(path: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '\\' && path[i + 1] === '.') { current += '.'; i++; }
    else if (path[i] === '.') { parts.push(current); current = ''; }
    else current += path[i];
  }
  parts.push(current);
  return parts;
}

function transform(value: unknown, type: unknown): unknown {
  if (type === 'Date') return new Date(value as string);
  if (type === 'undefined') return undefined;
  if (type === 'bigint') return BigInt(value as string);
  if (type === 'number') return Number(value);
  if (type === 'set') return new Set(value as unknown[]);
  if (type === 'map') return new Map(value as [unknown, unknown][]);
  return value;
}

function updateAt(value: unknown, path: string[], fn: (v: unknown) => unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return fn(value);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  record[head] = updateAt(record[head], rest, fn);
  return value;
}

function applyTree(value: unknown, tree: Tree): unknown {
  if (tree[1]) value = applyChildren(value, tree[1]);
  return transform(value, tree[0]);
}

function applyChildren(value: unknown, children: Record<string, Tree>): unknown {
  Object.keys(children).forEach((p) => {
    value = updateAt(value, parsePath(p), (v) => applyTree(v, children[p]!));
  });
  return value;
}

export function deserialize(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object') return payload;
  const { json, meta } = payload as SuperJsonPayload;
  const values = meta && meta.values;
  if (!values) return json;
  return Array.isArray(values) ? applyTree(json, values) : applyChildren(json, values);
}

/** What render fills: text, and spans classed by kind (key, string, number, literal, date). */
export type Rendered = (Node | string)[];

// Renders a decoded value as JSON-like text, Dates as Date(ISO) in their own colour.
export function render(value: unknown, indent: number, out: Rendered): void {
  const pad = '  '.repeat(indent + 1);
  const close = '  '.repeat(indent);
  if (value instanceof Date) { out.push(el('span', 'date', 'Date(' + (isNaN(value.getTime()) ? 'Invalid' : value.toISOString()) + ')')); return; }
  if (value === undefined) { out.push(el('span', 'literal', 'undefined')); return; }
  if (typeof value === 'bigint') { out.push(el('span', 'number', value + 'n')); return; }
  if (value instanceof Set || value instanceof Map) value = Array.from(value);
  if (value && typeof value === 'object') {
    const isArray = Array.isArray(value);
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 0) { out.push(isArray ? '[]' : '{}'); return; }
    out.push(isArray ? '[\n' : '{\n');
    keys.forEach((k, i) => {
      out.push(pad);
      if (!isArray) { out.push(el('span', 'key', JSON.stringify(k))); out.push(': '); }
      render(record[k], indent + 1, out);
      out.push(i < keys.length - 1 ? ',\n' : '\n');
    });
    out.push(close + (isArray ? ']' : '}'));
    return;
  }
  const cls = typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'literal';
  out.push(el('span', cls, JSON.stringify(value)));
}
