import { readFileSync } from 'node:fs';
import { PROCEDURES_DOC, proceduresTable, tableBetweenMarkers } from '../../scripts/procedures-table';

describe('docs/procedures.md procedures table', () => {
  it('matches the registry (regenerate with npm run docs:procedures -- --write)', () => {
    const between = tableBetweenMarkers(readFileSync(PROCEDURES_DOC, 'utf8'));
    expect(between).toBeDefined();
    expect(between).toBe(proceduresTable());
  });
});
