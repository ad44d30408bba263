import { expect } from 'vitest';
import { createUser } from './resource-bodies';
import { unique, type TestServer } from './server';

/** A user of the API with a key of their own. */
export interface Caller {
  id: string;
  key: string;
}

/**
 * Request helpers acting as callers of `server` (read when called: suites start their server in
 * `beforeAll`).
 */
export function callersOf(server: () => TestServer) {
  return {
    /** A new user (created by the administrator) and an API key of theirs. */
    async newCaller(label: string): Promise<Caller> {
      const user = await createUser(server(), { firstName: label });
      const token = await server().request('POST', '/api/access-tokens', { body: { name: unique('key'), userId: user.id } });
      expect(token.status, token.text).toBe(201);
      return { id: user.id, key: token.body.token };
    },

    /** A REST request (as the administrator when `caller` is null) that must answer `status`; its JSON. */
    async rest(caller: Caller | null, method: string, path: string, status: number, body?: unknown) {
      const answer = await server().request(method, path, { body, key: caller?.key });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
      return answer.body;
    },

    /** The statements of one GraphQL query as `key`, credentials already cached. */
    measured,

    /**
     * `query($id: ID!) { selection }` as the resolvers answer it, level by level (a directive on the root
     * field sends a query to them), once checked that the database answers it the same in one statement.
     */
    async resolvedLevels(selection: string, variables: Record<string, unknown>, key: string): Promise<{ data: any; statements: number }> {
      const inSql = await measured(`query($id: ID!) { ${selection} }`, variables, key);
      const resolved = await measured(`query($id: ID!) { ${selection.replace(/^(\w+\([^)]*\))/, '$1 @include(if: true)')} }`, variables, key);
      expect(inSql.statements, selection).toBe(1);
      expect(inSql.data, selection).toEqual(resolved.data);
      return resolved;
    },
  };

  async function measured(query: string, variables: Record<string, unknown>, key: string): Promise<{ data: any; statements: number }> {
    await server().graphqlData('{ me { id } }', undefined, key);
    let data: any;
    const recorded = await server().fewestQueries(async () => {
      data = await server().graphqlData(query, variables, key);
    });
    return { data, statements: recorded.length };
  }
}
