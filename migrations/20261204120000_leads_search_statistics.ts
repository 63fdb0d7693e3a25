import type { Knex } from 'knex';

// PostgreSQL estimates how many rows a `like '%term%'` matches from the column's histogram. With
// the default 100 entries, a term in 2.5% of a million leads ("patel") was guessed at 132 matches
// of the 32,697 its trigrams found, so the page read them all by the trigram index and sorted them
// instead of walking the list's order until it had a page: about twice as long.
// 1,000 entries cost a larger ANALYZE sample of these two columns and more statistics to store.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table leads alter column contact_search_lower set statistics 1000;
    alter table leads alter column contact_phone_digits set statistics 1000;
    analyze leads (contact_search_lower, contact_phone_digits);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table leads alter column contact_search_lower set statistics -1;
    alter table leads alter column contact_phone_digits set statistics -1;
  `);
}
