/**
 * Prints the Markdown table of every procedure and subscription (method, scope, exposed, input) from the registries,
 * and with --write replaces the table between the markers in docs/procedures.md, so the docs
 * cannot drift (tests/unit/procedures-table.test.ts checks it is current).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { procedures, subscriptions } from '../src/procedures';
import { scopesOf } from '../src/rpc/define-procedure';

/** The file holding the generated table, between the two markers. */
export const PROCEDURES_DOC = join(__dirname, '..', 'docs', 'procedures.md');
export const START = '<!-- procedures:start -->';
export const END = '<!-- procedures:end -->';

function inputSummary(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  const properties = Object.keys(json.properties ?? {});
  if (properties.length === 0) return '(none)';
  const required = new Set(json.required ?? []);
  return properties.map((p) => (required.has(p) ? `\`${p}\`` : `\`${p}?\``)).join(', ');
}

/** A subscription is a GET answered as a stream of Server-Sent Events. */
const SUBSCRIPTION_METHOD = 'GET (SSE)';

export function proceduresTable(): string {
  const rows = [
    ...procedures.map((p) => ({ ...p, method: p.method as string })),
    ...subscriptions.map((s) => ({ ...s, method: SUBSCRIPTION_METHOD })),
  ]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => `| \`${p.name}\` | ${p.method} | ${('alsoScopes' in p ? scopesOf(p) : [p.scope]).map((s) => `\`${s}\``).join(' and ')} | ${p.exposed ? 'yes' : 'no'} | ${inputSummary(p.input)} | ${p.description} |`);
  return ['| procedure | method | scope | exposed | input | what it does |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The table now between the markers of `text`, or undefined when the markers are missing. */
export function tableBetweenMarkers(text: string): string | undefined {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + START.length, end).trim();
}

if (require.main === module) {
  const table = proceduresTable();
  if (process.argv.includes('--write')) {
    const doc = readFileSync(PROCEDURES_DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    if (start < 0 || end < start) throw new Error(`${PROCEDURES_DOC} lacks the ${START} ... ${END} markers`);
    writeFileSync(PROCEDURES_DOC, `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`);
  } else {
    console.log(table);
  }
}
