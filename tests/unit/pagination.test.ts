import { containsPattern, offsetOf, toPage } from '../../src/db/pagination';

describe('toPage', () => {
  it('answers totalPages 1 (not 0) and no neighbours when nothing matches', () => {
    expect(toPage([], 0, { page: 1, pageSize: 50 })).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false },
    });
  });

  it('rounds totalPages up and flags both neighbours on a middle page', () => {
    expect(toPage(['x'], 101, { page: 2, pageSize: 50 }).pagination).toEqual({
      page: 2, pageSize: 50, total: 101, totalPages: 3, hasNextPage: true, hasPrevPage: true,
    });
  });

  it('has a next page on the first of several and none on the last', () => {
    expect(toPage([], 100, { page: 1, pageSize: 50 }).pagination).toMatchObject({ totalPages: 2, hasNextPage: true, hasPrevPage: false });
    expect(toPage([], 100, { page: 2, pageSize: 50 }).pagination).toMatchObject({ totalPages: 2, hasNextPage: false, hasPrevPage: true });
  });

  it('answers an empty page past the end with no next page', () => {
    expect(toPage([], 3, { page: 9, pageSize: 2 })).toEqual({
      data: [],
      pagination: { page: 9, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false, hasPrevPage: true },
    });
  });

  it('keeps the data as given', () => {
    const data = [{ id: 'a' }, { id: 'b' }];
    expect(toPage(data, 2, { page: 1, pageSize: 2 }).data).toBe(data);
  });
});

describe('offsetOf', () => {
  it('skips the previous pages', () => {
    expect(offsetOf({ page: 1, pageSize: 50 })).toBe(0);
    expect(offsetOf({ page: 3, pageSize: 25 })).toBe(50);
  });
});

describe('containsPattern', () => {
  it('wraps the term in % for a contains match', () => {
    expect(containsPattern('acme')).toBe('%acme%');
  });

  it('escapes %, _ and the backslash so they match literally', () => {
    expect(containsPattern('100%')).toBe('%100\\%%');
    expect(containsPattern('snake_case')).toBe('%snake\\_case%');
    expect(containsPattern('a\\b')).toBe('%a\\\\b%');
    expect(containsPattern('%_\\')).toBe('%\\%\\_\\\\%');
  });
});
