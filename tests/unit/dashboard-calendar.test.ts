import { daysOfRange, isTimeZone, localDay } from '../../src/procedures/dashboard/calendar';
import { conversionRate } from '../../src/procedures/dashboard/lead-stats';

describe('dashboard calendar days', () => {
  it.each([
    ['UTC', true],
    ['America/New_York', true],
    ['Etc/GMT+5', true],
    ['+01:00', false],
    ['Mars/Olympus_Mons', false],
    ['', false],
    ['../etc/passwd', false],
  ])('isTimeZone(%j) is %s', (name, expected) => {
    expect(isTimeZone(name)).toBe(expected);
  });

  it('names the local calendar day of an instant', () => {
    const instant = new Date('2026-03-02T04:59:59.999Z');
    expect(localDay(instant, 'UTC')).toBe('2026-03-02');
    expect(localDay(instant, 'America/New_York')).toBe('2026-03-01');
    expect(localDay(new Date('2026-03-01T15:00:00Z'), 'Asia/Tokyo')).toBe('2026-03-02');
  });

  it('lists every day touched by a half-open range, the end instant excluded', () => {
    const from = new Date('2026-03-01T00:00:00Z');
    const to = new Date('2026-03-04T00:00:00Z');
    expect(daysOfRange(from, to, 'UTC')).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(daysOfRange(from, to, 'America/New_York')).toEqual(['2026-02-28', '2026-03-01', '2026-03-02', '2026-03-03']);
    expect(daysOfRange(from, from, 'UTC')).toEqual([]);
  });

  it('counts days, not 24-hour steps, across a daylight-saving change', () => {
    // New York springs forward on 2026-03-08: that local day has 23 hours.
    const from = new Date('2026-03-07T05:00:00Z');
    const to = new Date('2026-03-10T04:00:00Z');
    expect(daysOfRange(from, to, 'America/New_York')).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
  });

  it('lists the days of a range across a year end and a leap day', () => {
    expect(daysOfRange(new Date('2027-12-31T12:00:00Z'), new Date('2028-01-01T12:00:00Z'), 'UTC')).toEqual(['2027-12-31', '2028-01-01']);
    expect(daysOfRange(new Date('2028-02-28T00:00:00Z'), new Date('2028-03-01T00:00:00Z'), 'UTC')).toEqual(['2028-02-28', '2028-02-29']);
  });
});

describe('conversion rate', () => {
  it.each([
    [0, 0, 0],
    [0, 5, 0],
    [3, 2, 0.6667],
    [3, 1, 0.3333],
    [8, 8, 1],
    [2, 3, 1.5],
  ])('created %i, converted %i -> %d', (created, converted, rate) => {
    expect(conversionRate(created, converted)).toBe(rate);
  });
});
