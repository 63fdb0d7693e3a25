import { phoneSearchDigits, toE164, uniqueInOrder } from '../../src/domain/phone';

describe('toE164', () => {
  it('reads a national GB number in the GB region', () => {
    expect(toE164('020 7946 0000', 'GB')).toBe('+442079460000');
    expect(toE164('  020-7946-0000 ', 'GB')).toBe('+442079460000');
  });

  it('reads a national US number in the US region', () => {
    expect(toE164('(212) 456-7890', 'US')).toBe('+12124567890');
    expect(toE164('212.456.7890', 'US')).toBe('+12124567890');
  });

  it('reads the same digits differently depending on the region', () => {
    expect(toE164('2079460000', 'US')).toBe('+12079460000');
    expect(toE164('2079460000', 'GB')).toBe('+442079460000');
  });

  it('keeps an international number whatever the region', () => {
    expect(toE164('+44 20 7946 0000', 'US')).toBe('+442079460000');
    expect(toE164('+1 212 456 7890', 'GB')).toBe('+12124567890');
  });

  it('answers null for text, too few digits or an empty string', () => {
    expect(toE164('call me', 'GB')).toBeNull();
    expect(toE164('123', 'GB')).toBeNull();
    expect(toE164('', 'US')).toBeNull();
    expect(toE164('+44 20', 'GB')).toBeNull();
  });
});

describe('uniqueInOrder', () => {
  it('drops later duplicates and keeps the first in place', () => {
    expect(uniqueInOrder(['+1', '+2', '+1', '+3', '+2'])).toEqual(['+1', '+2', '+3']);
  });
});

describe('phoneSearchDigits', () => {
  it('answers the digits as typed and without the trunk zero', () => {
    expect(phoneSearchDigits('020 7946')).toEqual(['0207946', '207946']);
    expect(phoneSearchDigits('(020) 7946-0000')).toEqual(['02079460000', '2079460000']);
  });

  it('answers the digits alone for an international prefix', () => {
    expect(phoneSearchDigits('+44 20 7946')).toEqual(['44207946']);
  });

  it('keeps only the typed digits when dropping the zeros leaves fewer than 3', () => {
    expect(phoneSearchDigits('007')).toEqual(['007']);
  });

  it('answers nothing for terms that are not phone-like or have fewer than 3 digits', () => {
    expect(phoneSearchDigits('ab12')).toEqual([]);
    expect(phoneSearchDigits('12')).toEqual([]);
    expect(phoneSearchDigits('Acme 2020')).toEqual([]);
    expect(phoneSearchDigits('')).toEqual([]);
  });
});
