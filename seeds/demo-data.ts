/** Word lists for the demo workspaces: plausible, fictional, and free of real people's data. */
export const FIRST_NAMES = ['Ava', 'Ben', 'Chloe', 'Dev', 'Ella', 'Finn', 'Grace', 'Hari', 'Isla', 'Jack', 'Kira', 'Leo', 'Maya', 'Noah', 'Olivia', 'Priya', 'Quinn', 'Ravi', 'Sofia', 'Tom', 'Uma', 'Victor', 'Wen', 'Yusuf', 'Zara'];
export const LAST_NAMES = ['Smith', 'Jones', 'Patel', 'Khan', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Evans', 'Thomas', 'Roberts', 'Walker', 'Wright', 'Nguyen', "O'Neill", 'García', 'Müller', 'Okafor', 'Kowalski', 'Lee'];
export const COMPANIES = ['Acorn Logistics', 'Bluebell Dental', 'Copperfield Legal', 'Dovetail Joinery', 'Evergreen Gardens', 'Foxglove Florists', 'Granite Builders', 'Harbour Cafés', 'Ironbridge Motors', 'Juniper Yoga', 'Kestrel Couriers', 'Lantern Print Co', 'Maple & Co', 'Northwind Travel', '100% Organic Ltd', 'Snake_Case Software'];
export const SOURCES = ['website', 'referral', 'trade show', 'cold call', 'LinkedIn', null];

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
