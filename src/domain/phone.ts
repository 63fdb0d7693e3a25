import { getExampleNumber, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json';

/**
 * A phone number in E.164, or null when it cannot be read as a valid number.
 * Numbers without a country code are read in the workspace's default region.
 */
export function toE164(raw: string, defaultRegion: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), defaultRegion as CountryCode);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}

export interface PhoneExample {
  e164: string;
  /** How the same number is written at home: what a caller in the region types. */
  national: string;
}

const examplesByRegion = new Map<string, PhoneExample | null>();

/** A valid number of the region in both forms (a mobile one, from libphonenumber's examples), for messages; null for a region it has none for. */
export function phoneExample(region: string): PhoneExample | null {
  let example = examplesByRegion.get(region);
  if (example === undefined) {
    example = null;
    try {
      const number = getExampleNumber(region as CountryCode, examples);
      if (number) example = { e164: number.number, national: number.formatNational() };
    } catch {
      // A region libphonenumber does not know: the message goes without a national example.
    }
    examplesByRegion.set(region, example);
  }
  return example;
}

/** Keeps the first occurrence of each value, in order (so the primary stays first). */
export function uniqueInOrder(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * Digit strings a search term should match in stored E.164 numbers, so `020 7946` and `+44 20 7946`
 * both find +4420794600..: the digits as typed, and without a national trunk prefix of zeros.
 * Only terms that look like a phone number (digits, spaces, + ( ) . -) with 3 or more digits count.
 */
export function phoneSearchDigits(term: string): string[] {
  if (!/^[\d\s()+.-]+$/.test(term)) return [];
  const digits = term.replace(/\D/g, '');
  if (digits.length < 3) return [];
  const withoutTrunk = digits.replace(/^0+/, '');
  return withoutTrunk !== digits && withoutTrunk.length >= 3 ? [digits, withoutTrunk] : [digits];
}

/** A list's `search` input as the queries take it; a blank term is no filter. */
export function toSearchTerm(raw: string | undefined): { text: string; phoneDigits: string[] } | undefined {
  const text = raw?.trim();
  return text ? { text, phoneDigits: phoneSearchDigits(text) } : undefined;
}

/** An E.164 number's national significant digits (+442079460018 -> 2079460018): what any written form of it holds, once its non-digits are dropped. */
export function nationalDigits(e164: string): string {
  return parsePhoneNumberFromString(e164)?.nationalNumber ?? e164.replace(/\D/g, '');
}
