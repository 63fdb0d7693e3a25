import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The documents a reader follows: every file under docs/, and the top-level guides. */
const DOCS = [
  'README.md', 'SECURITY.md', 'packages/client/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
].filter((f) => existsSync(join(ROOT, f)));

/** Folders a path named in a doc starts with (relative to the repository's root). */
const TOP = /^(src|tests|bench|scripts|docs|migrations|packages|seeds|deploy|\.ci)\//;
const FILE = /^[\w.@/-]+\.(ts|js|json|md|ya?ml|sh|sql|css|html)$/;

function namedPaths(text: string): string[] {
  const inCode = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return inCode
    .map((p) => p.replace(/[:#].*$/, '').replace(/[),.;]+$/, ''))
    .filter((p) => TOP.test(p) && !p.includes('<') && (FILE.test(p) || p.endsWith('/')));
}

function linkedPaths(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.replace(/#.*$/, '')).filter((p) => p !== '' && !/^[a-z]+:/.test(p));
}

function npmScripts(text: string): string[] {
  return [...text.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
}

const scripts = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts));
const clientScripts = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {}));

/** A renamed or removed file, or a script, must not leave a doc pointing at nothing. */
describe.each(DOCS)('%s', (doc) => {
  const text = readFileSync(join(ROOT, doc), 'utf8');

  it('names only files and folders that exist', () => {
    // From the repository's root, or (a package's README) from the document's own folder.
    const missing = namedPaths(text).filter((p) => !existsSync(join(ROOT, p)) && !existsSync(join(ROOT, dirname(doc), p)));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('links only to files that exist', () => {
    const missing = linkedPaths(text).filter((p) => !existsSync(resolve(join(ROOT, dirname(doc)), p)));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names only npm scripts that exist', () => {
    const missing = npmScripts(text).filter((s) => !scripts.has(s) && !clientScripts.has(s));
    expect([...new Set(missing)]).toEqual([]);
  });
});
