import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, it } from 'vitest';

/**
 * The committed schema/openapi.json as its consumers' tools read it: Redocly's recommended rules and
 * Spectral's spectral:oas (redocly.yaml, .spectral.yaml, npm run lint:openapi) find no error, and the
 * types openapi-typescript generates from it compile under `tsc --strict`, typing a list's answer as its
 * page alone (as openapi-fetch reads it) and an export's as text. The tools are the pinned
 * devDependencies, run as CI runs them.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const DOCUMENT = 'schema/openapi.json';
/** The tools take a few seconds each, more on a busy machine. */
const TOOL_TIMEOUT_MS = 120_000;

const scratch = mkdtempSync(join(tmpdir(), 'openapi-types-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command of node_modules/.bin from the project root; a non-zero exit is the test's to judge. */
async function bin(name: string, args: string[], cwd = root): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(join(root, 'node_modules', '.bin', name), args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

describe.concurrent('the committed OpenAPI document', () => {
  it("has no error under Redocly's recommended rules", { timeout: TOOL_TIMEOUT_MS }, async ({ expect }) => {
    const run = await bin('redocly', ['lint', DOCUMENT, '--format=json']);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const shown = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`).join('\n');
    expect(report.totals.errors, shown).toBe(0);
    expect(run.code, run.stderr).toBe(0);
  });

  it("has no error under Spectral's spectral:oas rules", { timeout: TOOL_TIMEOUT_MS }, async ({ expect }) => {
    const run = await bin('spectral', ['lint', DOCUMENT, '--format=json', '--quiet']);
    const results = JSON.parse(run.stdout) as { code: string; severity: number; message: string; path: string[] }[];
    const shown = results.map((r) => `${['error', 'warn', 'info', 'hint'][r.severity]} ${r.code} ${r.path.join('.')}: ${r.message}`).join('\n');
    expect(results.filter((r) => r.severity === 0).length, shown).toBe(0);
    expect(run.code, run.stderr).toBe(0);
  });

  it('generates TypeScript types (openapi-typescript) that compile under tsc --strict', { timeout: TOOL_TIMEOUT_MS }, async ({ expect }) => {
    const ast = await openapiTS(new URL(`../${DOCUMENT}`, import.meta.url), { silent: true });
    writeFileSync(join(scratch, 'api.d.ts'), astToString(ast));
    // A client's uses of them, which the compiler checks against what the document promises.
    writeFileSync(
      join(scratch, 'client.ts'),
      [
        "import type { components, operations, paths } from './api';",
        "type Schemas = components['schemas'];",
        "export const noStatus: Schemas['Project']['status'] = null;",
        "export const secret: operations['createOrganizationSecret']['requestBody']['content']['application/json'] = { name: 'API_KEY', value: 'v' };",
        "export type TaskPage = paths['/api/tasks']['get']['responses'][200]['content']['application/json'];",
        'export const firstTitle = (page: TaskPage): string | null | undefined => page.content[0]?.title;',
        "export type NotModified = paths['/api/tasks/{id}']['head']['responses'][304];",
        "export type AgentTools = operations['listAgentSessionServiceBridges']['responses'][200]['content']['application/json'];",
        "export type Unsupported = operations['createTask']['responses'][415]['content']['application/json'];",
        // As openapi-fetch types `data`: the union of the success answer's media types. A list's is its page
        // alone, so `data.content` needs no cast; an export's is text.
        'type SuccessData<O> = O extends { responses: { 200: { content: infer C } } } ? C[keyof C] : never;',
        "export const titles = (data: SuccessData<paths['/api/tasks']['get']>): string[] => data.content.map((task) => task.title);",
        "export const names = (data: SuccessData<operations['listOrganizationSecrets']>): string[] => data.content.map((secret) => secret.name);",
        "export const exported = (data: SuccessData<paths['/api/tasks/export']['get']>): string => data;",
        "export const exportedSecrets = (data: SuccessData<operations['exportOrganizationSecrets']>): string => data;",
        '',
      ].join('\n'),
    );
    const run = await bin(
      'tsc',
      ['--noEmit', '--strict', '--skipLibCheck', 'false', '--target', 'es2022', '--module', 'nodenext', join(scratch, 'client.ts')],
      scratch,
    );
    expect(run.stdout + run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
