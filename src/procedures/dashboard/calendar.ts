/** Calendar days of instants in an IANA time zone, as `YYYY-MM-DD` (what PostgreSQL's `(t at time zone tz)::date` gives). */

const DAY_MS = 86_400_000;
// An IANA zone name (`UTC`, `Europe/London`, `America/Argentina/Buenos_Aires`), not an offset
// such as `+01:00`, which newer Intl versions accept but PostgreSQL reads with the opposite sign.
export const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/** Whether Intl knows the name as a time zone (the name is answered back as given: ICU's canonical names vary by version). */
export function isTimeZone(name: string): boolean {
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export function localDay(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Every calendar day touched by the half-open range [from, to) in the zone, in order; none when it is empty. */
export function daysOfRange(from: Date, to: Date, timeZone: string): string[] {
  if (to.getTime() <= from.getTime()) return [];
  const last = Date.parse(`${localDay(new Date(to.getTime() - 1), timeZone)}T00:00:00Z`);
  const days: string[] = [];
  for (let day = Date.parse(`${localDay(from, timeZone)}T00:00:00Z`); day <= last; day += DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}
