/**
 * The first part of /developer/assets/developer.js: reads a superjson payload as the typed client
 * would (the paths its meta lists as "Date" become Date objects) and renders it with Dates shown
 * as Date(ISO). Plain browser JavaScript, no build step.
 */
export const DECODE_SCRIPT = String.raw`'use strict';
var superjsonView = (function () {
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // superjson's meta lists the paths of values JSON cannot carry; "a.b\.c" escapes a dot in a key.
  function parsePath(path) {
    var parts = [], current = '';
    for (var i = 0; i < path.length; i++) {
      if (path[i] === '\\' && path[i + 1] === '.') { current += '.'; i++; }
      else if (path[i] === '.') { parts.push(current); current = ''; }
      else current += path[i];
    }
    parts.push(current);
    return parts;
  }
  function transform(value, type) {
    if (type === 'Date') return new Date(value);
    if (type === 'undefined') return undefined;
    if (type === 'bigint') return BigInt(value);
    if (type === 'number') return Number(value);
    if (type === 'set') return new Set(value);
    if (type === 'map') return new Map(value);
    return value;
  }
  function updateAt(value, path, fn) {
    if (path.length === 0) return fn(value);
    if (value === null || typeof value !== 'object') return value;
    value[path[0]] = updateAt(value[path[0]], path.slice(1), fn);
    return value;
  }
  function applyTree(value, tree) {
    if (tree[1]) value = applyChildren(value, tree[1]);
    return transform(value, tree[0]);
  }
  function applyChildren(value, children) {
    Object.keys(children).forEach(function (p) {
      value = updateAt(value, parsePath(p), function (v) { return applyTree(v, children[p]); });
    });
    return value;
  }
  function deserialize(payload) {
    if (!payload || typeof payload !== 'object') return payload;
    var values = payload.meta && payload.meta.values;
    if (!values) return payload.json;
    return Array.isArray(values) ? applyTree(payload.json, values) : applyChildren(payload.json, values);
  }

  // Renders a decoded value as JSON-like text, Dates as Date(ISO) in their own colour.
  function render(value, indent, out) {
    var pad = '  '.repeat(indent + 1), close = '  '.repeat(indent);
    if (value instanceof Date) { out.push(el('span', 'date', 'Date(' + (isNaN(value) ? 'Invalid' : value.toISOString()) + ')')); return; }
    if (value === undefined) { out.push(el('span', 'literal', 'undefined')); return; }
    if (typeof value === 'bigint') { out.push(el('span', 'number', value + 'n')); return; }
    if (value instanceof Set || value instanceof Map) value = Array.from(value);
    if (Array.isArray(value) || (value && typeof value === 'object')) {
      var isArray = Array.isArray(value), keys = Object.keys(value);
      if (keys.length === 0) { out.push(isArray ? '[]' : '{}'); return; }
      out.push(isArray ? '[\n' : '{\n');
      keys.forEach(function (k, i) {
        out.push(pad);
        if (!isArray) { out.push(el('span', 'key', JSON.stringify(k))); out.push(': '); }
        render(value[k], indent + 1, out);
        out.push(i < keys.length - 1 ? ',\n' : '\n');
      });
      out.push(close + (isArray ? ']' : '}'));
      return;
    }
    var cls = typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'literal';
    out.push(el('span', cls, JSON.stringify(value)));
  }

  return { deserialize: deserialize, render: render };
})();
`;
