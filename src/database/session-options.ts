/**
 * Settings of the connections that serve requests:
 * - `jit=off`: PostgreSQL compiles a statement whose estimated cost passes `jit_above_cost`, and a
 *   request's statements (a nested level over a hundred parents, a count) pass it on estimates while
 *   running in a millisecond or two; compiling them took 25-30 ms each time, ten times the work itself.
 * - `max_parallel_workers_per_gather=0`: one request's statement runs on one core. A parallel count
 *   takes three, so under concurrent requests it costs more in all and takes cores from other callers.
 * - `random_page_cost=1.1`: the data is in memory or on SSD, where an index read costs little more
 *   than a sequential one; with the default (4) a count over most of a table scans the whole heap
 *   instead of the (smaller) index that holds the tenant key and liveness flags.
 */
export const REQUEST_SETTINGS: Readonly<Record<string, string>> = { jit: 'off', max_parallel_workers_per_gather: '0', random_page_cost: '1.1' };

/** The request settings as the startup option of a session (DATABASE_POOL_MODE=session). */
export const REQUEST_SESSION_OPTIONS = startupOptions(REQUEST_SETTINGS);

/** `-c name=value` for each setting: the `options` startup parameter of a connection. */
export function startupOptions(settings: Readonly<Record<string, string>>): string {
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

/**
 * One statement that gives the current transaction `settings` (set_config's third argument, `true`, is
 * SET LOCAL: they end with the transaction). Behind a pooler in transaction mode a setting can live no
 * longer than a transaction, since the next one may run on another server connection. Names and values
 * are the server's own constants, never a caller's text.
 */
export function localSettingsSql(settings: Readonly<Record<string, string>>): string {
  const calls = Object.entries(settings).map(([name, value]) => `set_config('${name}', '${value}', true)`);
  return `select ${calls.join(', ')}`;
}

/** The request settings with a statement timeout (undefined: the server's own). */
export function requestSettings(statementTimeoutMs: number | undefined, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...(statementTimeoutMs === undefined ? {} : { statement_timeout: String(statementTimeoutMs) }), ...REQUEST_SETTINGS, ...extra };
}
