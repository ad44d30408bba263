/**
 * Session settings of the connections that serve requests. JIT compilation is off: PostgreSQL compiles
 * a statement whose estimated cost passes `jit_above_cost`, and a request's statements (a nested level over
 * a hundred parents, a count) pass it on estimates while running in a millisecond or two; compiling
 * them took 25-30 ms each time, ten times the work itself.
 */
export const REQUEST_SESSION_OPTIONS = '-c jit=off';
