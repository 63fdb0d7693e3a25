/**
 * `npm run build`: dist/esm (ES modules) and dist/cjs (CommonJS), each with its `.d.ts`, compiled
 * by the package's own TypeScript 5; each tree gets a package.json naming its module type.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [config, type] of [['tsconfig.esm.json', 'module'], ['tsconfig.cjs.json', 'commonjs']]) {
  execFileSync(process.execPath, [tsc, '-p', join(root, config)], { stdio: 'inherit' });
  const out = join(root, 'dist', type === 'module' ? 'esm' : 'cjs');
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
