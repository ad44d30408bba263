import fc from 'fast-check';
import { fieldsOf, inverseFiltersOf, type FieldMeta } from '../../../src/model/fields';
import type { Resource } from '../../../src/model/resource';
import { edgeNumber, oddString } from './arbitraries';

/**
 * `filter`, `sort`, `page` and `pageSize` values for a resource: made from its field names (own,
 * through relations, through inverse filters) with values of every kind, and from garbage.
 */

interface Path {
  path: string;
  field: FieldMeta;
}

/** The paths a filter or sort may name on `resource`: its fields, one and two relations deep, and its inverse filters. */
export function fieldPaths(resource: Resource): Path[] {
  const paths: Path[] = [];
  for (const field of resource.fields) {
    paths.push({ path: field.name, field });
    if (!field.reference) continue;
    for (const inner of fieldsOf(field.reference.target())) {
      paths.push({ path: `${field.reference.relation}.${inner.name}`, field: inner });
      if (inner.reference) {
        for (const deepest of fieldsOf(inner.reference.target()).slice(0, 6)) {
          paths.push({ path: `${field.reference.relation}.${inner.reference.relation}.${deepest.name}`, field: deepest });
        }
      }
    }
  }
  for (const link of inverseFiltersOf(resource.entity)) {
    for (const field of fieldsOf(link.source)) paths.push({ path: `${link.name}.${field.name}`, field });
  }
  return paths;
}

/** Unquoted value text for a field: mostly of its kind (at the edges too), sometimes anything. */
function valueText(field: FieldMeta): fc.Arbitrary<string> {
  const odd = fc.oneof(oddString, fc.constantFrom('', 'null', 'true', 'false', '*', '%', '_', '\\', '0'));
  let typed: fc.Arbitrary<string>;
  switch (field.kind) {
    case 'int':
    case 'number':
      typed = fc.oneof(
        fc.integer({ min: -5, max: 100 }).map(String),
        edgeNumber.map(String),
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            '99999999999',
            '2147483648',
            '2147483647',
            '-2147483648',
            '-2147483649',
            '1e20',
            '1e308',
            '9007199254740993',
            '4294967296',
          ),
        },
        fc.constantFrom('1e400', '-0', '0x10', '1_000', '١٢', ' 1', 'NaN', 'Infinity', '1.5'),
      );
      break;
    case 'dateTime':
      typed = fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('0001-01-01', '9999-12-31T23:59:59.999Z', '2026-02-30', '2026-01-01T00:00:00+14:00', '2026', '2026-01-01'),
      );
      break;
    case 'enum':
      typed = fc.oneof(
        fc.constantFrom(...field.enum!.values),
        fc.constantFrom(...field.enum!.values).map((v) => v.toLowerCase()),
      );
      break;
    case 'id':
    case 'reference':
      typed = fc.oneof(
        fc.uuid(),
        fc.uuid().map((u) => u.toUpperCase()),
        fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid'),
      );
      break;
    case 'boolean':
      typed = fc.constantFrom('true', 'false', 'TRUE', '1');
      break;
    default:
      typed = fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => `*${s}*`),
      );
  }
  return fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: odd });
}

/** A value as RSQL writes it: single- or double-quoted with escapes, bare, or a parenthesised list. */
function quoted(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    text.map((t) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`),
    text.map((t) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`),
    text,
    fc.array(text, { maxLength: 4 }).map((items) => `(${items.map((t) => `'${t.replace(/'/g, "\\'")}'`).join(',')})`),
  );
}

const OPERATORS = ['==', '!=', '=like=', '=in=', '=out=', '>', '>=', '<', '<=', '=gt=', '=ge=', '=lt=', '=le=', '=isnull='];
const operator = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...OPERATORS) },
  { weight: 1, arbitrary: fc.constantFrom('=', '===', '=nope=', '=LIKE=', '<>', '=~', '') },
);

/** Operators that apply to a field of the kind: the comparisons a careful client writes. */
function operatorsFor(field: FieldMeta): string[] {
  switch (field.kind) {
    case 'string':
      return ['==', '!=', '=like=', '=in=', '=out=', '>', '<'];
    case 'int':
    case 'number':
    case 'dateTime':
      return ['==', '!=', '>', '>=', '<', '<=', '=gt=', '=le=', '=in='];
    default:
      return ['==', '!=', '=in=', '=out='];
  }
}

/**
 * One comparison: mostly on a path that may be filtered, with an operator of its kind and a value of
 * its kind (at the edges too); otherwise any path, any operator, any value, or garbage.
 */
function comparison(paths: Path[]): fc.Arbitrary<string> {
  const filterable = paths.filter((p) => p.field.options.filterable !== false);
  const plausible = fc
    .constantFrom(...filterable)
    .chain(({ path, field }) =>
      fc.oneof(
        { weight: 6, arbitrary: fc.tuple(fc.constant(path), fc.constantFrom(...operatorsFor(field)), quoted(valueText(field))) },
        { weight: 1, arbitrary: fc.tuple(fc.constant(path), fc.constant('=isnull='), fc.constantFrom('true', 'false', 'yes')) },
      ),
    );
  const any = fc.constantFrom(...paths).chain(({ path, field }) => fc.tuple(fc.constant(path), operator, quoted(valueText(field))));
  const junk = fc.tuple(fc.oneof(oddString, fc.constantFrom('memberTask', 'a.b.c.d.e', '.', 'id.', '__proto__', 'constructor')), operator, quoted(oddString));
  return fc
    .oneof({ weight: 8, arbitrary: plausible }, { weight: 2, arbitrary: any }, { weight: 1, arbitrary: junk })
    .map(([path, op, value]) => `${path}${op}${value}`);
}

/** A filter expression: comparisons joined by `;` `,` `and` `or`, in parentheses, sometimes cut or spliced with garbage. */
export function filterText(resource: Resource): fc.Arbitrary<string> {
  const paths = fieldPaths(resource);
  const expression = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 3, arbitrary: comparison(paths) },
      fc.tuple(tie('node'), fc.constantFrom(';', ',', ' and ', ' or ', ' AND ', ' ; ', '  '), tie('node')).map(([a, join, b]) => `${a}${join}${b}`),
      tie('node').map((inner) => `(${inner})`),
    ),
  })).node;
  const spliced = fc
    .tuple(
      expression,
      fc.nat(),
      fc.nat({ max: 4 }),
      fc.string({ unit: fc.constantFrom('(', ')', "'", '"', ';', ',', '=', '\\', ' ', '*', '\u0000', '\ud800'), maxLength: 3 }),
    )
    .map(([text, at, cut, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + cut));
  return fc.oneof({ weight: 6, arbitrary: expression }, { weight: 1, arbitrary: spliced }, { weight: 1, arbitrary: oddString });
}

/** A sort parameter: terms `path[:direction]` joined by `;` (or the repeated `name,desc` form), or garbage. */
export function sortText(resource: Resource): fc.Arbitrary<string> {
  const paths = fieldPaths(resource);
  const sortable = paths.filter((p) => p.field.options.filterable !== false && !p.path.startsWith('memberTask.')).map((p) => p.path);
  const path = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...sortable) },
    { weight: 1, arbitrary: fc.constantFrom(...paths.map((p) => p.path)) },
    { weight: 1, arbitrary: oddString },
  );
  const direction = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('', ':asc', ':desc', ':ASC', ':Desc') },
    fc.constantFrom(',desc', ',asc', ':up', '::', ':asc:desc', ';'),
    oddString.map((s) => `:${s}`),
  );
  const term = fc.tuple(path, direction).map(([p, d]) => `${p}${d}`);
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(term, { minLength: 1, maxLength: 3 }).map((terms) => terms.join(';')) },
    { weight: 1, arbitrary: oddString },
  );
}

/** A page or pageSize value: in range, at and past the edges, not a number, not an integer. */
export const pagingText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 3 }).map(String) },
  fc.integer({ min: -2, max: 1002 }).map(String),
  fc.constantFrom(
    '2147483647',
    '2147483648',
    '-2147483648',
    '99999999999999999999',
    '1e3',
    '1.5',
    '0x10',
    '+1',
    ' 1 ',
    '',
    '١',
    'NaN',
    'null',
    '[]',
    '0.0',
    '-0',
  ),
  edgeNumber.map(String),
  oddString,
);

/**
 * Text for a query string, percent-encoded as a browser would, except that unpaired surrogates (which
 * encodeURIComponent refuses) travel as the bytes of their 3-byte form, which is not valid UTF-8. Cut
 * at `max` encoded characters: Node's HTTP parser answers a request line over 16 KB itself (431,
 * without the API's error body), before the application sees it.
 */
export function encodeQueryValue(text: string, max = 2000): string {
  let encoded = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const piece =
      code >= 0xd800 && code <= 0xdfff
        ? `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase()
        : encodeURIComponent(char);
    if (encoded.length + piece.length > max) break;
    encoded += piece;
  }
  return encoded;
}
