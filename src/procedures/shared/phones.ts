import { invalidInput, type FieldIssue } from '../../errors/app-error';
import { toE164, uniqueInOrder } from '../../domain/phone';

/** A phone as typed, with where it came from in the input (for the field issue). */
export interface PhoneInput {
  value: string;
  path: (string | number)[];
}

/**
 * Reads every phone in the workspace's region and answers E.164 numbers, de-duplicated in order;
 * any unreadable one is a 400 naming its field.
 */
export function normalisePhones(phones: PhoneInput[], region: string): string[] {
  const issues: FieldIssue[] = [];
  const normalised: string[] = [];
  for (const phone of phones) {
    const e164 = toE164(phone.value, region);
    if (e164) normalised.push(e164);
    else issues.push({ path: phone.path, message: `not a valid phone number (read in region ${region})` });
  }
  if (issues.length > 0) throw invalidInput(issues);
  return uniqueInOrder(normalised);
}

export function phonesAt(field: string, values: string[]): PhoneInput[] {
  return values.map((value, index) => ({ value, path: [field, index] }));
}
