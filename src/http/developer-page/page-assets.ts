import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The page's three files, as served. */
export interface DeveloperAssets {
  html: string;
  script: string;
  styles: string;
}

/** The page's sources: HTML, CSS and the TypeScript that esbuild bundles (checked by browser/tsconfig.json). */
export const SOURCE_DIR = join(__dirname, 'browser');
/**
 * Where `npm run build` writes the page (scripts/build-developer-page.ts), beside this module's
 * compiled file: dist/src/http/developer-page/assets/. Running from the sources (tsx, jest),
 * there is no such folder, and the page is built from SOURCE_DIR instead.
 */
export const BUILT_DIR = join(__dirname, 'assets');
/** The built files' names, those of their URLs under /developer/assets/ (the HTML is served at /developer). */
export const BUILT_FILES = { html: 'developer.html', script: 'developer.js', styles: 'developer.css' } as const;

/**
 * The browser script: browser/main.ts and what it imports, as one classic script (an IIFE, so
 * nothing leaks into the page's globals), strict (the tsconfig's `strict` makes esbuild say
 * "use strict"), for the browsers of ES2022. esbuild is a development
 * dependency, required here only: the built service reads BUILT_DIR and never loads it.
 */
export function bundleDeveloperScript(sourceDir: string = SOURCE_DIR): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [join(sourceDir, 'main.ts')],
    tsconfig: join(sourceDir, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1) throw new Error(`esbuild wrote ${result.outputFiles.length} files for the developer page, not one`);
  return output.text;
}

/** The page from its sources: the HTML and CSS as they are, the script bundled in memory. */
export function developerAssetsFromSource(sourceDir: string = SOURCE_DIR): DeveloperAssets {
  return {
    html: readFileSync(join(sourceDir, 'developer.html'), 'utf8'),
    styles: readFileSync(join(sourceDir, 'developer.css'), 'utf8'),
    script: bundleDeveloperScript(sourceDir),
  };
}

function readBuilt(): DeveloperAssets {
  const read = (name: string) => readFileSync(join(BUILT_DIR, name), 'utf8');
  return { html: read(BUILT_FILES.html), script: read(BUILT_FILES.script), styles: read(BUILT_FILES.styles) };
}

let assets: DeveloperAssets | undefined;

/**
 * The page's files, loaded on the first request for one of them and kept for the life of the
 * process: those `npm run build` wrote when there are any (node dist/src/index.js, the image),
 * else built from the sources (npm start through tsx, the tests). So a server that never serves
 * the page never reads or bundles it.
 */
export function developerAssets(): DeveloperAssets {
  if (assets) return assets;
  if (existsSync(join(BUILT_DIR, BUILT_FILES.script))) assets = readBuilt();
  else if (existsSync(join(SOURCE_DIR, 'main.ts'))) assets = developerAssetsFromSource();
  else throw new Error(`The developer page is not built: neither ${BUILT_DIR} nor ${SOURCE_DIR} holds it (npm run build writes the first)`);
  return assets;
}
