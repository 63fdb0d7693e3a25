import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The documents whose relative links must resolve: the README, docs/*.md and SECURITY.md. */
const DOCUMENTS = [
  'README.md',
  'SECURITY.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, line numbers kept (fenced lines become empty). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading: its text lowercased, punctuation dropped, spaces made hyphens. */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image keeps its text
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a document offers: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = headingSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

interface Link {
  document: string;
  line: number;
  target: string;
}

/** Inline links and images `[text](target)` and reference definitions `[name]: target`, outside code. */
function linksOf(document: string): Link[] {
  const links: Link[] = [];
  proseLines(readFileSync(join(ROOT, document), 'utf8')).forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, ''); // inline code is not a link
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ document, line: index + 1, target: match[1]! });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) links.push({ document, line: index + 1, target: definition[1]! });
  });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Why a relative link does not resolve, or undefined when it does. */
function problemWith(link: Link): string | undefined {
  const [path = '', anchor] = link.target.split('#') as [string, string | undefined];
  const file = path === '' ? join(ROOT, link.document) : resolve(ROOT, dirname(link.document), decodeURIComponent(path));
  const inside = relative(ROOT, file);
  if (inside.startsWith(`..${sep}`) || inside === '..') return 'leaves the repository (it dangles in a clone)';
  if (!existsSync(file)) return `no file ${inside}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `an anchor into ${inside}, which is not a Markdown file`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'));
  return anchors.has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading #${anchor} in ${inside}`;
}

describe('relative links in the README, docs/*.md and SECURITY.md', () => {
  it('finds the documents and their links', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'SECURITY.md', 'docs/operating.md', 'docs/procedures.md']));
    expect(DOCUMENTS.flatMap(linksOf).filter((link) => !isExternal(link.target)).length).toBeGreaterThan(20);
  });

  it.each(DOCUMENTS)('%s: every relative link leads to an existing file and heading', (document) => {
    const broken = linksOf(document)
      .filter((link) => !isExternal(link.target))
      .map((link) => ({ link, problem: problemWith(link) }))
      .filter((checked) => checked.problem !== undefined)
      .map(({ link, problem }) => `${link.document}:${link.line} (${link.target}): ${problem}`);
    expect(broken).toEqual([]);
  });
});

describe('headingSlug', () => {
  it.each([
    ['Operators\' CLI', 'operators-cli'],
    ['The REST list: GET /api/v1/leads', 'the-rest-list-get-apiv1leads'],
    ['Why every key and index leads with `org_id`', 'why-every-key-and-index-leads-with-org_id'],
    ['0. One PostgreSQL server: the settings that matter', '0-one-postgresql-server-the-settings-that-matter'],
    ['Safe by default: modes, secrets, outbound requests', 'safe-by-default-modes-secrets-outbound-requests'],
  ])('makes GitHub\'s anchor of %j', (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug);
  });
});
