import { formatFields, formatTable, printable } from '../../src/cli/table';

describe('formatTable', () => {
  it('pads each column to its widest cell, two spaces apart, the last column unpadded', () => {
    expect(formatTable(['ID', 'NAME', 'N'], [['org_1', 'A', '2'], ['org_22', 'Longer name', '10']])).toBe(
      ['ID      NAME         N', 'org_1   A            2', 'org_22  Longer name  10'].join('\n'),
    );
  });

  it('escapes control characters in cells, so a stored name can neither colour the terminal nor split a row', () => {
    const table = formatTable(['NAME'], [['Evil\u001b[31mRed\nNext\u009b']]);

    expect(table).toBe('NAME\nEvil\\u001b[31mRed\\u000aNext\\u009b');
  });
});

describe('formatFields', () => {
  it('aligns the values after the longest label', () => {
    expect(formatFields([['id', 'org_1'], ['api keys', '3 (1 active)']])).toBe('id        org_1\napi keys  3 (1 active)');
  });
});

describe('printable', () => {
  it('leaves other text, accents and emoji included, as it is', () => {
    expect(printable('Zoë 🚀 <b>')).toBe('Zoë 🚀 <b>');
  });
});
