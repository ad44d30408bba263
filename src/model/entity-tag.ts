/**
 * HTTP validators of rows (RFC 9110 §8.8.3): a row's strong entity tag names its id and its
 * changeSequence, which moves on every write, so a tag is current exactly while the row is unchanged.
 */
export function entityTag(id: string, changeSequence: number): string {
  return `"${id}.${changeSequence}"`;
}

/** The tags of an `If-Match` (or `If-None-Match`) header: `*`, or the listed tags (weak ones marked so). */
export function listedTags(header: string): '*' | string[] {
  const text = header.trim();
  if (text === '*') return '*';
  return text.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** The changeSequence an entity tag of row `id` names (undefined when it names another row or is not one of ours). */
export function sequenceOfTag(tag: string, id: string): number | undefined {
  const match = /^"([0-9a-f-]{36})\.(\d{1,10})"$/i.exec(tag);
  if (!match || match[1].toLowerCase() !== id.toLowerCase()) return undefined;
  return Number(match[2]);
}
