import type { Knex } from 'knex';

// Lead and contact search matches a term anywhere in the contact's name, company, emails and
// phones (ILIKE '%term%'), which no btree can serve: every search read the whole workspace
// (200-600 ms at a million leads). Trigram GIN indexes serve ILIKE '%term%' for 3+ characters.
// search_text is the four fields joined by the unit separator (chr 31), emails and phones
// joined by spaces as before; a term without that character matches it exactly when it matches
// one of the fields, so the queries need no per-field check. phone_digits keeps only digits and
// spaces, so a fragment typed '020 7946' or '+44 20 7946' (searched as digits) finds
// '+442079460123'. Stored columns, not expression indexes: PostgreSQL rechecks every candidate
// row, and reading a column costs far less than calling the function again.
// The functions are immutable, as a generated column needs (array_to_string is only stable in
// general, but immutable for text[]).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create extension if not exists pg_trgm;

    create function contact_search_text(name text, company text, emails text[], phones text[])
      returns text language sql immutable parallel safe
      as $$ select concat_ws(chr(31), name, coalesce(company, ''), array_to_string(emails, ' '), array_to_string(phones, ' ')) $$;

    create function contact_phone_digits(phones text[])
      returns text language sql immutable parallel safe
      as $$ select regexp_replace(array_to_string(phones, ' '), '[^0-9 ]', '', 'g') $$;

    alter table contacts
      add column search_text text not null generated always as (contact_search_text(name, company, emails, phones)) stored,
      add column phone_digits text not null generated always as (contact_phone_digits(phones)) stored;

    create index contacts_search_trgm_idx on contacts using gin (search_text gin_trgm_ops);
    create index contacts_phone_digits_trgm_idx on contacts using gin (phone_digits gin_trgm_ops);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table contacts drop column phone_digits, drop column search_text;
    drop function contact_phone_digits(text[]);
    drop function contact_search_text(text, text, text[], text[]);
  `);
}
