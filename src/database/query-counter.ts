import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core';

/** Counts every SQL statement the ORM sends, so tests and benchmarks can assert query shapes. */
export const queryCounter = { total: 0 };

export class CountingLogger extends DefaultLogger {
  constructor(options: LoggerOptions) {
    super(options);
  }

  override logQuery(context: { query: string } & LogContext): void {
    queryCounter.total += 1;
    super.logQuery(context);
  }
}
