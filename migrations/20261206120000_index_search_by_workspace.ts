import type { Knex } from 'knex';

// The search text's trigram indexes held every workspace's rows, so a search's bitmap held other
// workspaces' matches too, and each cost a heap page before the org_id check dropped it:
// counting "Patel" in the million-lead workspace read 23,372 heap pages, for 25,103 matches of
// its own and 7,612 of the other workspaces. btree_gin puts org_id inside the index (the
// workspace's entry is intersected with the term's trigrams), so the bitmap holds the
// workspace's matches alone: 17,890 pages, and the first page's p95 88 ms instead of 110.
// The same for contacts, whose list searches the same way. The phone digits' indexes stay
// shared: a digit trigram is in a large share of all phones, and intersecting those with the
// workspace's entry read about 250 more index pages per fragment (4.4 ms with org_id against
// 1.3 ms without, for "7571691") to save the few heap pages of other workspaces' matches. The new indexes are built before the
// old ones go, so searches keep an index.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create extension if not exists btree_gin;

    create index leads_org_search_trgm_idx on leads using gin (org_id, contact_search_lower gin_trgm_ops) with (gin_pending_list_limit = 512);
    create index contacts_org_search_trgm_idx on contacts using gin (org_id, search_text gin_trgm_ops) with (gin_pending_list_limit = 512);
    drop index leads_contact_search_trgm_idx;
    drop index contacts_search_trgm_idx;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create index leads_contact_search_trgm_idx on leads using gin (contact_search_lower gin_trgm_ops) with (gin_pending_list_limit = 512);
    create index contacts_search_trgm_idx on contacts using gin (search_text gin_trgm_ops) with (gin_pending_list_limit = 512);
    drop index leads_org_search_trgm_idx;
    drop index contacts_org_search_trgm_idx;
    drop extension btree_gin;
  `);
}
