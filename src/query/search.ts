import { BadRequestError } from '../errors/api-error';
import type { FieldMeta } from '../model/fields';
import { unstorableText } from '../model/text';

/** Longest free text `query` accepted, in characters: a pattern is matched against every character of every searched value. */
export const MAX_QUERY_CHARACTERS = 256;

/** `query`: case-insensitive free text over the searchable fields (or the searchText column where one exists). */
export function searchCondition(fields: FieldMeta[], text: string | undefined): Record<string, unknown> | undefined {
  const words = text?.trim();
  if (!words) return undefined;
  if (words.length > MAX_QUERY_CHARACTERS) throw BadRequestError.forField('query', `is longer than the limit of ${MAX_QUERY_CHARACTERS} characters`);
  const unstorable = unstorableText(words);
  if (unstorable) throw BadRequestError.forField('query', unstorable);
  const pattern = `%${words.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (fields.some((f) => f.name === 'searchText')) return { searchText: { $ilike: pattern } };
  const searchable = fields.filter((f) => f.options.searchable);
  return { $or: searchable.map((f) => ({ [f.name]: { $ilike: pattern } })) };
}

/** The stored searchText: the searchable values, lowercased, one line. */
export function searchTextOf(fields: FieldMeta[], values: Record<string, unknown>): string {
  return fields
    .filter((f) => f.options.searchable)
    .map((f) => values[f.name])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .join(' ')
    .toLowerCase();
}
