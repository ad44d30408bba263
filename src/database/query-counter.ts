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
export const queryCounter: { total: number; recorded?: RecordedStatement[] } = { total: 0 };

export function countStatement(text: string, params: readonly unknown[] = [], name?: string): void {
  queryCounter.total += 1;
  queryCounter.recorded?.push({ text, params, name });
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
