import type { Knex } from 'knex';
import { containsPattern } from './pagination';

/** A search term as the lists of leads, contacts and clients take it: the text, and the digit strings a phone may contain. */
export interface SearchTerm {
  text: string;
  phoneDigits: string[];
}

/** Joins the fields of contacts.search_text (migration 20261123150100_index_contact_search), and of the leads' copies of it. */
const FIELD_SEPARATOR = '\u001f';

/**
 * Where a query finds a contact's searchable fields: the contact's own row (`contactRow`), or a
 * lead's copies of them, which read the contact only for the rows still in question
 * (src/db/leads/page-statement.ts).
 */
export interface ContactFields {
  /** The fields joined by FIELD_SEPARATOR, found through its trigram index; `lowerCased` when stored lower-cased. */
  searchText: { column: string; lowerCased: boolean };
  /** The phones' digits, through their trigram index: they find a phone's candidates, the stored phones decide. */
  phoneDigits: string;
  /** Adds `check`, written on the contacts table's columns (`column('phones')`), to `q`: on the row itself or through the contact. */
  onContact(q: Knex.QueryBuilder, check: (q: Knex.QueryBuilder, column: (name: string) => string) => void): void;
}

/** The contacts table's own row, as `alias` ('' when the query reads contacts itself). */
export function contactRow(alias: string): ContactFields {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return {
    searchText: { column: column('search_text'), lowerCased: false },
    phoneDigits: column('phone_digits'),
    onContact: (q, check) => check(q, column),
  };
}

/**
 * Restricts a query to rows whose contact (name, company, any email, any phone) contains the
 * term, case-insensitively, `%` and `_` literal: the one contact match of the contacts list and
 * the leads list's search, read where `fields` says.
 *
 * A term of 3+ characters is found through the trigram indexes on the joined text and the phone
 * digits; a shorter one scans the workspace's rows.
 */
export function whereContactMatches(query: Knex.QueryBuilder, search: SearchTerm, fields: ContactFields): void {
  const pattern = containsPattern(search.text);
  query.where((q) => {
    if (search.text.includes(FIELD_SEPARATOR)) {
      // Only such a term could match across two fields of the joined text: check each field.
      fields.onContact(q, (c, column) => c.where((f) => {
        f.whereILike(column('name'), pattern)
          .orWhereILike(column('company'), pattern)
          .orWhereRaw(`array_to_string(${column('emails')}, ' ') ilike ?`, [pattern])
          .orWhereRaw(`array_to_string(${column('phones')}, ' ') ilike ?`, [pattern]);
      }));
    } else if (fields.searchText.lowerCased) {
      // `like lower(pattern)` on lower-cased text is what ILIKE does in a UTF-8 database.
      q.whereRaw(`${fields.searchText.column} like lower(?)`, [pattern]);
    } else {
      q.whereILike(fields.searchText.column, pattern);
    }
    for (const digits of search.phoneDigits) {
      const digitsPattern = containsPattern(digits);
      q.orWhere((d) => {
        d.whereLike(fields.phoneDigits, digitsPattern);
        fields.onContact(d, (c, column) => c.andWhereRaw(`array_to_string(${column('phones')}, ' ') like ?`, [digitsPattern]));
      });
    }
  });
}
