/**
 * Session settings of the connections that serve requests:
 * - `jit=off`: PostgreSQL compiles a statement whose estimated cost passes `jit_above_cost`, and a
 *   request's statements (a nested level over a hundred parents, a count) pass it on estimates while
 *   running in a millisecond or two; compiling them took 25-30 ms each time, ten times the work itself.
 * - `max_parallel_workers_per_gather=0`: one request's statement runs on one core. A parallel count
 *   takes three, so under concurrent requests it costs more in all and takes cores from other callers.
 * - `random_page_cost=1.1`: the data is in memory or on SSD, where an index read costs little more
 *   than a sequential one; with the default (4) a count over most of a table scans the whole heap
 *   instead of the (smaller) index that holds the tenant key and liveness flags.
 */
export const REQUEST_SESSION_OPTIONS = '-c jit=off -c max_parallel_workers_per_gather=0 -c random_page_cost=1.1';
