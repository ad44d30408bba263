import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { parseDateTime } from './date-time';
export { GraphQLJSON as JSONScalar } from 'graphql-scalars';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** ISO 8601 UTC with milliseconds, the same text REST answers with. */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'ISO 8601 date-time in UTC with milliseconds, e.g. 2026-11-25T10:00:00.000Z',
  serialize(value) {
    // Rows read by the prepared statements carry their times as answer text already.
    if (typeof value === 'string' && ISO_UTC.test(value)) return value;
    const date = value instanceof Date ? value : new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return date.toISOString();
  },
  parseValue(value) {
    return parseDateTimeInput(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    return parseDateTimeInput(ast.value);
  },
});

function parseDateTimeInput(value: unknown): Date {
  const date = typeof value === 'string' ? parseDateTime(value) : undefined;
  if (!date) throw new GraphQLError('DateTime must be an ISO 8601 date-time string');
  return date;
}
