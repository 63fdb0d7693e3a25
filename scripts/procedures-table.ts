/**
 * Prints the Markdown table of every procedure (method, scope, exposed, input) from the registry,
 * and with --write replaces the table between the markers in README.md, so the docs cannot drift.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { procedures } from '../src/procedures';

const START = '<!-- procedures:start -->';
const END = '<!-- procedures:end -->';

function inputSummary(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  const properties = Object.keys(json.properties ?? {});
  if (properties.length === 0) return '(none)';
  const required = new Set(json.required ?? []);
  return properties.map((p) => (required.has(p) ? `\`${p}\`` : `\`${p}?\``)).join(', ');
}

export function proceduresTable(): string {
  const rows = [...procedures]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => `| \`${p.name}\` | ${p.method} | \`${p.scope}\` | ${p.exposed ? 'yes' : 'no'} | ${inputSummary(p.input)} | ${p.description} |`);
  return ['| procedure | method | scope | exposed | input | what it does |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

if (require.main === module) {
  const table = proceduresTable();
  if (process.argv.includes('--write')) {
    const path = join(__dirname, '..', 'README.md');
    const readme = readFileSync(path, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    if (start < 0 || end < start) throw new Error(`README.md lacks the ${START} ... ${END} markers`);
    writeFileSync(path, `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`);
  } else {
    console.log(table);
  }
}
