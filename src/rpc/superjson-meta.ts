/**
 * A check of superjson's `meta` against the `json` it describes, before superjson acts on it.
 * superjson trusts its meta: a `values` tree that is a string recurses until the stack overflows
 * (tens of milliseconds per request), and a path to a far array index (`"a.4294967294"`) makes a
 * sparse array that a `set` or `map` annotation then walks index by index, for minutes. A client's
 * meta only ever names values that are in its json, so anything else is refused here. The format
 * is superjson 2's (paths are keys joined by `.`, with `\.` and `\\` escapes unless `v` < 1).
 */

type Path = string[];

/** superjson refuses these too; refusing them here does not depend on that. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** Whether every path the meta names is one superjson may follow in `json`. */
export function metaFitsJson(json: unknown, meta: Record<string, unknown>): boolean {
  // superjson writes `v: 1`; older versions write no `v` and read paths without `\\` escapes.
  if (meta.v !== undefined && typeof meta.v !== 'number') return false;
  const legacy = !((meta.v ?? 0) >= 1);
  const paths: Path[] = [];
  if (!collectValuePaths(meta.values, [], legacy, paths)) return false;
  if (!collectEqualityPaths(meta.referentialEqualities, legacy, paths)) return false;
  return paths.every((path) => pathFits(json, path));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A `values` tree: `[annotation, {path: tree}?]` for a node, or `{path: tree}` of nodes. */
function collectValuePaths(tree: unknown, origin: Path, legacy: boolean, out: Path[]): boolean {
  if (!tree) return true; // superjson skips an empty tree
  if (Array.isArray(tree)) {
    const [, children] = tree;
    if (tree.length > 2 || (children !== undefined && !isRecord(children))) return false;
    out.push(origin);
    return children === undefined || collectChildren(children, origin, legacy, out);
  }
  return isRecord(tree) && collectChildren(tree, origin, legacy, out);
}

function collectChildren(children: Record<string, unknown>, origin: Path, legacy: boolean, out: Path[]): boolean {
  return Object.entries(children).every(([key, child]) => {
    const path = parsePath(key, legacy);
    return path !== undefined && collectValuePaths(child, [...origin, ...path], legacy, out);
  });
}

/** `{path: [paths...]}`, or `[rootPaths, {path: [paths...]}?]` when the root itself recurs. */
function collectEqualityPaths(equalities: unknown, legacy: boolean, out: Path[]): boolean {
  if (!equalities) return true;
  const addAll = (paths: unknown): boolean => {
    if (!Array.isArray(paths)) return false;
    for (const text of paths) {
      const path = typeof text === 'string' ? parsePath(text, legacy) : undefined;
      if (!path) return false;
      out.push(path);
    }
    return true;
  };
  const addRecord = (record: unknown): boolean => isRecord(record) && Object.entries(record).every(([key, paths]) => addAll([key]) && addAll(paths));
  if (Array.isArray(equalities)) {
    const [root, others] = equalities;
    return equalities.length <= 2 && addAll(root) && (others === undefined || addRecord(others));
  }
  return addRecord(equalities);
}

/** superjson's path syntax; undefined where superjson would throw ("invalid path"). */
function parsePath(text: string, legacy: boolean): Path | undefined {
  const path: Path = [];
  let segment = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    const next = text.charAt(i + 1);
    if (char === '\\' && (next === '.' || (!legacy && next === '\\'))) {
      segment += next;
      i++;
    } else if (char === '\\' && !legacy) {
      return undefined;
    } else if (char === '.') {
      path.push(segment);
      segment = '';
    } else {
      segment += char;
    }
  }
  path.push(segment);
  return path;
}

/**
 * Every step but the last must exist; the last may name a missing key of an object (superjson
 * writes `undefined` values that way), but an array index must be inside the array.
 */
function pathFits(json: unknown, path: Path): boolean {
  let node = json;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const last = i === path.length - 1;
    if (PROTOTYPE_KEYS.has(key)) return false;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= node.length) return false;
      node = node[Number(key)];
    } else if (isRecord(node)) {
      if (!Object.hasOwn(node, key)) return last;
      node = node[key];
    } else {
      return false;
    }
  }
  return true;
}
