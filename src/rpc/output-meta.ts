/**
 * superjson's `serialize`, for the values handlers return: plain objects and arrays of strings,
 * finite numbers, booleans, null and valid Dates. Each Date is named in `meta.values` at
 * superjson's path (keys joined by `.`, `\` and `.` escaped); the value itself is left as it is,
 * because `JSON.stringify` writes a Date as `toISOString()`, exactly what superjson writes.
 *
 * superjson copies the whole tree and builds an annotation object per node on every answer; this
 * walks it once and allocates only for Dates. Anything else (undefined, NaN, -0, BigInt, Map,
 * Set, class instances, an object met twice, a prototype-polluting key) answers `undefined`, and
 * the caller hands the value to superjson itself; a property test holds the two to the same text.
 */

export type OutputMeta = { values: Record<string, ['Date']> | ['Date']; v: 1 } | undefined;

/** Thrown (not returned) so the walk stays a plain recursion; caught once by `outputMetaOf`. */
const NEEDS_SUPERJSON = Symbol('needs superjson');

const RISKY_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The `meta` superjson would write beside `value` (undefined when it writes none); `false` when only superjson can tell. */
export function outputMetaOf(value: unknown): OutputMeta | false {
  if (isLeaf(value)) return undefined;
  if (value instanceof Date) {
    checkDate(value);
    return { values: ['Date'], v: 1 };
  }
  const dates: Record<string, ['Date']> = {};
  const seen = new Set<object>();
  try {
    walk(value, undefined, dates, seen);
  } catch (err) {
    if (err === NEEDS_SUPERJSON) return false;
    throw err;
  }
  for (const _ in dates) return { values: dates, v: 1 };
  return undefined;
}

function isLeaf(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return value === null;
  }
}

function checkDate(date: Date): void {
  if (Number.isNaN(date.getTime())) throw NEEDS_SUPERJSON;
}

/** `path` is undefined at the root: a key may be the empty string. */
function walk(node: unknown, path: string | undefined, dates: Record<string, ['Date']>, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null) throw NEEDS_SUPERJSON;
  // superjson records an object met at two paths as a referential equality.
  if (seen.has(node)) throw NEEDS_SUPERJSON;
  seen.add(node);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) child(node[i], path === undefined ? String(i) : `${path}.${i}`, dates, seen);
    return;
  }
  const proto = Object.getPrototypeOf(node);
  if (proto !== Object.prototype && proto !== null) throw NEEDS_SUPERJSON;
  for (const key of Object.keys(node)) {
    if (RISKY_KEYS.has(key)) throw NEEDS_SUPERJSON;
    const escaped = key.includes('.') || key.includes('\\') ? key.replace(/\\/g, '\\\\').replace(/\./g, '\\.') : key;
    child((node as Record<string, unknown>)[key], path === undefined ? escaped : `${path}.${escaped}`, dates, seen);
  }
}

function child(value: unknown, path: string, dates: Record<string, ['Date']>, seen: Set<object>): void {
  if (isLeaf(value)) return;
  if (value instanceof Date) {
    checkDate(value);
    if (seen.has(value)) throw NEEDS_SUPERJSON;
    seen.add(value);
    dates[path] = ['Date'];
    return;
  }
  walk(value, path, dates, seen);
}
