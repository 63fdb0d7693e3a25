/**
 * The second half of `npm run build`: writes the developer page (its HTML, CSS, and the script
 * esbuild bundles from src/http/developer-page/browser/main.ts) into the compiled output, beside
 * the compiled page-assets.js (dist/src/http/developer-page/assets/), where the built service
 * reads it: the image has no esbuild and no TypeScript sources. The same bundling as the service
 * does in memory when it runs from its sources, so both serve the same bytes.
 *
 *   tsx scripts/build-developer-page.ts [outDir]    # outDir: tsc's, dist by default
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { BUILT_DIR, BUILT_FILES, developerAssetsFromSource } from '../src/http/developer-page/page-assets';

const ROOT = resolve(__dirname, '..');

export function buildDeveloperPage(outDir: string): string {
  // BUILT_DIR is src/http/developer-page/assets here (this script runs from the sources): the same place under outDir.
  const target = join(resolve(ROOT, outDir), relative(ROOT, BUILT_DIR));
  const assets = developerAssetsFromSource();
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, BUILT_FILES.html), assets.html);
  writeFileSync(join(target, BUILT_FILES.styles), assets.styles);
  writeFileSync(join(target, BUILT_FILES.script), assets.script);
  return target;
}

if (require.main === module) {
  const target = buildDeveloperPage(process.argv[2] ?? 'dist');
  console.log(`developer page written to ${relative(ROOT, target)}/`);
}
