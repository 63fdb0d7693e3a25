import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * Comments in src/ that name a file name one that exists: a renamed or removed file must not leave
 * a comment pointing at nothing. A path from the repository's root (`src/...`, `docs/...`) must
 * exist there; a relative one (`browser/main.ts`) from the comment's folder, or from the root or
 * src/; a bare source or document name (`counters.ts`) in the comment's folder or anywhere in the
 * repository. URL paths (`/api/v1/...`), built output and packages' files are not checked.
 */

const ROOT = join(__dirname, '..', '..');
const SKIP = new Set(['node_modules', '.git', 'dist', '.tmp', 'coverage']);
const TOP = /^(src|tests|bench|scripts|docs|migrations|packages|seeds|deploy|\.ci)\//;
const PATH = /[\w.@/-]+\.(?:ts|js|json|md|ya?ml|sh|sql|css|html)\b/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The text of a file's comments: `//` to the end of a line, and `/* ... *\/` blocks. */
export function commentsOf(source: string): string {
  const found: string[] = [];
  for (const m of source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)) found.push(m[0]);
  return found.join('\n');
}

/** The paths a comment names (no URLs, no built output, no packages' own files). */
export function pathsIn(comment: string): string[] {
  const withoutUrls = comment.replace(/\b[a-z]+:\/\/\S+/g, '');
  return [...withoutUrls.matchAll(PATH)]
    .map((m) => m[0].replace(/^\.\//, ''))
    .filter((p) => !/^(dist|node_modules)\//.test(p) && !/^[./]/.test(p) && !p.includes('..'))
    // A bare name is a file only as source or a document: `res.json` is a method, `ipaddr.js` a package.
    .filter((p) => p.includes('/') || /\.(ts|md|sh|sql)$/.test(p));
}

const allFiles = filesUnder(ROOT);
const names = new Set(allFiles.map((f) => f.split('/').at(-1)!));

export function missingFrom(file: string, paths: string[]): string[] {
  const here = dirname(file);
  return paths.filter((p) => {
    if (TOP.test(p)) return !existsSync(join(ROOT, p));
    if (p.includes('/')) return ![join(here, p), join(ROOT, p), join(ROOT, 'src', p)].some(existsSync);
    return !existsSync(join(here, p)) && !names.has(p);
  });
}

describe('file names in comments in src/', () => {
  it('are found by this check (it reads comments, and only comments)', () => {
    const source = "// see docs/nowhere.md, ./gone.ts and /api/v1/x.json\nconst a = 'src/not-a-comment.ts'; /* src/app.ts, res.json */";
    const file = join(ROOT, 'src', 'example.ts');
    expect(pathsIn(commentsOf(source))).toEqual(['docs/nowhere.md', 'gone.ts', 'src/app.ts']);
    expect(missingFrom(file, pathsIn(commentsOf(source)))).toEqual(['docs/nowhere.md', 'gone.ts']);
  });

  it('name files that exist', () => {
    const missing = allFiles
      .filter((f) => f.startsWith(join(ROOT, 'src')) && f.endsWith('.ts'))
      .flatMap((f) => missingFrom(f, pathsIn(commentsOf(readFileSync(f, 'utf8')))).map((p) => `${relative(ROOT, f)}: ${p}`));
    expect([...new Set(missing)]).toEqual([]);
  });
});
