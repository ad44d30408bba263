import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core';

/** One statement as sent: its text with `$n` placeholders, and their values. */
export interface RecordedStatement {
  text: string;
  params: readonly unknown[];
  /** The name it was prepared under (planned once per connection), if any. */
  name?: string;
}

/**
 * Counts every SQL statement the server sends, so tests and benchmarks can assert query shapes; while
 * `recorded` is set, the statements themselves are kept there too (tests read their plans).
 */
export const queryCounter: { total: number; failed: number; recorded?: RecordedStatement[] } = { total: 0, failed: 0 };

export function countStatement(text: string, params: readonly unknown[] = [], name?: string): void {
  queryCounter.total += 1;
  queryCounter.recorded?.push({ text, params, name });
}

/**
 * Counts a statement PostgreSQL could not run as written (class 42: syntax, a name it does not know;
 * class 22: a value it cannot take): a defect, never a routine answer, since a read's checks refuse
 * what cannot run before it is sent. Rethrows the error.
 */
export function countedFailure(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('42') || code.startsWith('22'))) queryCounter.failed += 1;
  throw error;
}

export class CountingLogger extends DefaultLogger {
  constructor(options: LoggerOptions) {
    super(options);
  }

  override logQuery(context: { query: string } & LogContext): void {
    if (queryCounter.recorded) {
      let n = 0;
      countStatement(
        context.query.replace(/\?/g, () => `$${++n}`),
        context.params ?? [],
      );
    } else {
      queryCounter.total += 1;
    }
    super.logQuery(context);
  }
}
