/** Word lists for the demo workspaces: plausible, fictional, and free of real people's data. */
export const FIRST_NAMES = ['Ava', 'Ben', 'Chloe', 'Dev', 'Ella', 'Finn', 'Grace', 'Hari', 'Isla', 'Jack', 'Kira', 'Leo', 'Maya', 'Noah', 'Olivia', 'Priya', 'Quinn', 'Ravi', 'Sofia', 'Tom', 'Uma', 'Victor', 'Wen', 'Yusuf', 'Zara'];
export const LAST_NAMES = ['Smith', 'Jones', 'Patel', 'Khan', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Evans', 'Thomas', 'Roberts', 'Walker', 'Wright', 'Nguyen', "O'Neill", 'García', 'Müller', 'Okafor', 'Kowalski', 'Lee'];
export const COMPANIES = ['Acorn Logistics', 'Bluebell Dental', 'Copperfield Legal', 'Dovetail Joinery', 'Evergreen Gardens', 'Foxglove Florists', 'Granite Builders', 'Harbour Cafés', 'Ironbridge Motors', 'Juniper Yoga', 'Kestrel Couriers', 'Lantern Print Co', 'Maple & Co', 'Northwind Travel', '100% Organic Ltd', 'Snake_Case Software'];
export const SOURCES = ['website', 'referral', 'trade show', 'cold call', 'LinkedIn', null];

/**
 * Numbers set aside for fiction, never assigned to real lines, that the API's phone validation
 * (libphonenumber-js's metadata) accepts, so a demo lead can be saved back as it is.
 * UK: Ofcom's drama ranges, `<prefix>` then 0000-0999 (E.164). Ofcom's mobile range 07700 900xxx,
 * 01632 960xxx and Nottingham's 0115 496 0xxx are left out: the metadata refuses them.
 * US: 555-0100 to 555-0199, reserved by NANPA for fiction, in any area code.
 */
const UK_DRAMA_PREFIXES = [
  '+44207946', // London 020 7946 0xxx
  '+44113496', // Leeds 0113 496 0xxx
  '+44114496', // Sheffield
  '+44117496', // Bristol
  '+44121496', // Birmingham
  '+44131496', // Edinburgh
  '+44141496', // Glasgow
  '+44151496', // Liverpool
  '+44161496', // Manchester
  '+44191498', // Tyneside 0191 498 0xxx
  '+44292018', // Cardiff 029 2018 0xxx
];
const US_AREA_CODES = ['212', '312', '415', '617'];

/** The `n`th demo phone of a workspace in `region` (US, else GB): a different number for each n below 1000 (GB) or 100 (US). */
export function demoPhone(random: () => number, region: string, n: number): string {
  if (region === 'US') return `+1${pick(random, US_AREA_CODES)}55501${String(n % 100).padStart(2, '0')}`;
  return `${pick(random, UK_DRAMA_PREFIXES)}${String(n % 1000).padStart(4, '0')}`;
}

/** An address at example.com (reserved for examples), its local part in ASCII: García -> garcia, O'Neill -> oneill. */
export function demoEmail(first: string, last: string, n: number): string {
  const ascii = (word: string) => word.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return `${ascii(first)}.${ascii(last)}${n}@example.com`;
}

/** A small seeded generator, so every demo load is the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
