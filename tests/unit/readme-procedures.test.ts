import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { proceduresTable } from '../../scripts/procedures-table';

describe('README procedures table', () => {
  it('matches the registry (regenerate with npm run docs:procedures -- --write)', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const between = readme.split('<!-- procedures:start -->')[1]?.split('<!-- procedures:end -->')[0]?.trim();
    expect(between).toBe(proceduresTable());
  });
});
