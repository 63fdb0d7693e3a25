import type { Knex } from 'knex';
import { containsPattern } from './pagination';

/** A search term as the lists of leads, contacts and clients take it: the text, and the digit strings a phone may contain. */
export interface SearchTerm {
  text: string;
  phoneDigits: string[];
}

/** Joins the fields of contacts.search_text (migration 20261123150100_index_contact_search). */
const FIELD_SEPARATOR = '\u001f';

/**
 * Restricts a query to rows whose contact (name, company, any email, any phone) contains the
 * term, case-insensitively, `%` and `_` literal. `contact` is the contacts table's alias, or ''
 * when the query reads contacts itself. Shared by the contacts list and the leads list's search
 * (src/db/leads/page-statement.ts), which matches the leads' own copies of these fields first.
 *
 * A term of 3+ characters is found through the trigram indexes on search_text and
 * phone_digits; a shorter one scans the workspace's contacts.
 */
export function whereContactMatches(query: Knex.QueryBuilder, contact: string, search: SearchTerm): void {
  const column = (name: string) => (contact ? `${contact}.${name}` : name);
  const pattern = containsPattern(search.text);
  query.where((q) => {
    if (search.text.includes(FIELD_SEPARATOR)) {
      // Only such a term could match across two fields of search_text: check each field.
      q.whereILike(column('name'), pattern)
        .orWhereILike(column('company'), pattern)
        .orWhereRaw(`array_to_string(${column('emails')}, ' ') ilike ?`, [pattern])
        .orWhereRaw(`array_to_string(${column('phones')}, ' ') ilike ?`, [pattern]);
    } else {
      q.whereILike(column('search_text'), pattern);
    }
    for (const digits of search.phoneDigits) {
      const digitsPattern = containsPattern(digits);
      // phone_digits finds the candidates by index; the stored phones decide, as they always have.
      q.orWhere((d) => {
        d.whereLike(column('phone_digits'), digitsPattern).andWhereRaw(`array_to_string(${column('phones')}, ' ') like ?`, [digitsPattern]);
      });
    }
  });
}
