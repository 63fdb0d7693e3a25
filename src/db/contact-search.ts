import type { Knex } from 'knex';
import { containsPattern } from './pagination';
import { TABLES } from './tables';

/** A search term as the list queries take it: the text, and the digit strings a phone may contain. */
export interface SearchTerm {
  text: string;
  phoneDigits: string[];
}

/** Joins the fields of contacts.search_text (migration 20261123150100_index_contact_search). */
const FIELD_SEPARATOR = '\u001f';

/**
 * Restricts a query to rows whose contact (name, company, any email, any phone) contains the
 * term, case-insensitively, `%` and `_` literal. `contact` is the contacts table's alias, or ''
 * when the query reads contacts itself. Shared by the leads and contacts lists.
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

/**
 * The same match as `whereContactMatches`, for leads (alias `l`): on the copies of their contact's
 * search_text (lower-cased) and phone_digits that each lead carries (migration
 * 20261203120000_copy_contact_search_to_leads), so a search reads no contact for the leads it
 * rejects. `like lower(pattern)` on lower-cased text is what ILIKE does in a UTF-8 database.
 * The rare checks that need the contact's own fields read it only for the leads still in question.
 */
export function whereLeadContactMatches(query: Knex.QueryBuilder, search: SearchTerm): void {
  const pattern = containsPattern(search.text);
  const contactOfLead = (q: Knex.QueryBuilder) => q.select(q.client.raw('1')).from({ c: TABLES.contacts }).whereRaw('c.org_id = l.org_id and c.id = l.contact_id');
  query.where((q) => {
    if (search.text.includes(FIELD_SEPARATOR)) {
      q.whereExists((e) => whereContactMatches(contactOfLead(e), 'c', { text: search.text, phoneDigits: [] }));
    } else {
      q.whereRaw('l.contact_search_lower like lower(?)', [pattern]);
    }
    for (const digits of search.phoneDigits) {
      const digitsPattern = containsPattern(digits);
      q.orWhere((d) => {
        d.whereLike('l.contact_phone_digits', digitsPattern).whereExists((e) => {
          contactOfLead(e).andWhereRaw(`array_to_string(c.phones, ' ') like ?`, [digitsPattern]);
        });
      });
    }
  });
}
