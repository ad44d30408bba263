import fc from 'fast-check';
import type { FieldMeta } from '../../../src/model/fields';

/**
 * Values a hostile or careless client sends: text PostgreSQL cannot store, text that reads backwards,
 * numbers no column holds, types the field does not have, nesting no parser should recurse into.
 */

/** Characters that have broken servers: NUL, unpaired surrogates, direction overrides, joiners, escapes, wildcards. */
const ODD_CHARACTERS = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u202e',
  '\u202d',
  '\u200f',
  '\u061c',
  '\u2066',
  '\ufeff',
  '\u200b',
  '\u{1F600}',
  '\u{1F469}\u200d\u{1F469}\u200d\u{1F467}',
  '\u{1F3F3}\ufe0f\u200d\u{1F308}',
  'e\u0301',
  '\u0645\u0631\u062d\u0628\u0627',
  '\u05e9\u05dc\u05d5\u05dd',
  'ß',
  'İ',
  'ﬀ',
  '\uffff',
  '\u{10ffff}',
  '\u2028',
  '\\',
  '"',
  "'",
  '%',
  '*',
  '_',
  '\n',
  '\r',
  '\t',
  '\u007f',
  '${',
  '{{',
  '$',
  '..',
  '/',
  '?',
  '&',
  '#',
  ';',
  ',',
  '(',
  ')',
  '=',
  '<',
  '>',
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

export const oddCharacter = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_CHARACTERS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
);

/** Short odd text, sometimes very long text (up to 200,000 characters, under the 1 MB body limit). */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: oddCharacter, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(oddCharacter, fc.integer({ min: 256, max: 200_000 })).map(([c, n]) => c.repeat(Math.ceil(n / c.length))) },
);

/** Numbers at and past the edges of every column type, and fractions where integers belong. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
    1e300,
    -0,
    0.5,
    -1,
    1.5,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Free-form JSON, including object keys JavaScript treats specially. */
const jsonKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'id', '$where'), oddString);
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oddString,
    edgeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(jsonKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** `value` wrapped in 1 to 100 arrays or objects (the server refuses bodies nested deeper than 64). */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 1, max: 100 }), fc.constantFrom('array', 'object', 'mixed'), jsonValue)
  .map(([depth, shape, leaf]) => {
    let value = leaf;
    for (let level = 0; level < depth; level++) value = shape === 'array' || (shape === 'mixed' && level % 2) ? [value] : { a: value };
    return value;
  });

/** Anything at all: the wrong type for most fields. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(oddString, edgeNumber, fc.boolean(), fc.constant(null), jsonValue, deepValue);

const dateText = fc.oneof(
  fc.constantFrom(
    '2026-02-30',
    '2026-13-01',
    '0000-01-01',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:00+99:99',
    '2026-01-01T00:00:00+14:00',
    '2026-01-01T00:00:00.1234567890Z',
    '+275760-09-13T00:00:00Z',
    '-271821-04-20T00:00:00Z',
    '1970-01-01',
    'now',
    'today',
    'Infinity',
    '',
    ' 2026-01-01',
    '2026-01-01T00:00:00Z\u0000',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  oddString,
);

const uuidText = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constantFrom(
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '00000000-0000-4000-8000-00000000000',
    '{00000000-0000-4000-8000-000000000000}',
  ),
  oddString,
);

/** A value for `field` that is wrong, odd or at an edge for its kind, or of another type altogether. */
export function hostileValue(field: FieldMeta): fc.Arbitrary<unknown> {
  const { maxLength, minLength, min, max } = field.options;
  const byKind: fc.Arbitrary<unknown>[] = [];
  switch (field.kind) {
    case 'string':
      byKind.push(oddString);
      if (maxLength !== undefined) byKind.push(fc.constant('x'.repeat(maxLength)), fc.constant('x'.repeat(maxLength + 1)));
      if (minLength !== undefined && minLength > 0) byKind.push(fc.constant('x'.repeat(minLength - 1)));
      break;
    case 'int':
    case 'number':
      byKind.push(edgeNumber, fc.constantFrom('1', '1e3', '0x10', ' 5', 'NaN'));
      if (min !== undefined) byKind.push(fc.constant(min - 1));
      if (max !== undefined) byKind.push(fc.constant(max + 1));
      break;
    case 'boolean':
      byKind.push(fc.constantFrom('true', 'false', 0, 1, 'yes'));
      break;
    case 'dateTime':
      byKind.push(dateText, edgeNumber);
      break;
    case 'enum': {
      const values = field.enum!.values;
      byKind.push(
        fc.constantFrom(...values.map((v) => v.toLowerCase()), ...values.map((v) => ` ${v}`), values.length, values.join(',')),
        fc.constantFrom(...values).map((v) => [v]),
      );
      break;
    }
    case 'id':
    case 'reference':
      byKind.push(
        uuidText,
        uuidText.map((id) => ({ id })),
      );
      break;
    case 'stringArray':
      byKind.push(
        fc.array(oddString, { maxLength: 6 }),
        fc.array(anyValue, { maxLength: 4 }),
        fc.integer({ min: 1000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => `i${i}`)),
      );
      break;
    case 'json':
      byKind.push(jsonValue, deepValue, fc.array(jsonValue, { maxLength: 5 }));
      break;
  }
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...byKind) }, { weight: 1, arbitrary: anyValue });
}

/** Keys a body should not carry: odd text, case variants of real field names, prototype keys. */
export function junkKey(fieldNames: readonly string[]): fc.Arbitrary<string> {
  const variants = fieldNames.flatMap((name) => [`${name}_`, `${name}Id`, name.replace(/Id$/, ''), `${name}.x`]);
  return fc.oneof(jsonKey, fc.constantFrom(...variants));
}
