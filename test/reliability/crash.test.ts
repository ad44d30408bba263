import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { childDataDir, startChildServer, type ChildServer } from './support/child-server';
import { scratchDatabase, type ScratchDatabase } from './support/database';
import { byLoad, tally } from './support/figures';

/**
 * The built server as a child process on a database of its own, killed with SIGKILL while many
 * creates are in flight, then started again: every create it acknowledged (a 2xx received) is there,
 * with the id it answered; creates that were in flight when it died may or may not be, and nothing
 * that was never sent is. Needs `npm run build` (npm test runs it first).
 */

const adminKey = generateApiKey();
let database: ScratchDatabase;
let dataDir: ReturnType<typeof childDataDir>;
const children: ChildServer[] = [];

beforeAll(async () => {
  database = await scratchDatabase('platform_crash');
  dataDir = childDataDir();
});

afterAll(async () => {
  for (const child of children) await child.kill();
  await database?.drop();
  dataDir?.remove();
});

async function start(): Promise<ChildServer> {
  const child = await startChildServer({ databaseUrl: database.url, adminKey, dataDir: dataDir.path });
  children.push(child);
  return child;
}

/** Every task of the project, by title, read through the API a page of 100 at a time. */
async function tasksOf(server: ChildServer, projectId: string): Promise<Map<string, string[]>> {
  const byTitle = new Map<string, string[]>();
  for (let page = 0; ; page++) {
    const answer = await server.request(
      'GET',
      `/api/tasks?filter=${encodeURIComponent(`projectId==${projectId}`)}&pageSize=100&page=${page}&sort=createdOn:asc`,
    );
    expect(answer.status, answer.text).toBe(200);
    for (const task of answer.body.content as { id: string; title: string }[]) byTitle.set(task.title, [...(byTitle.get(task.title) ?? []), task.id]);
    if (answer.body.last) return byTitle;
  }
}

describe('a server process killed with SIGKILL under write load', () => {
  it('keeps every write it acknowledged: 0 lost after a restart', async ({ task }) => {
    const counts = tally(task);
    const figures = counts.figures;
    Object.assign(figures, { acknowledged: 0, found: 0, lost: 0, inFlightUnknown: 0 });
    const writers = 16;
    let server = await start();
    const organization = await server.request('POST', '/api/organizations', { body: { name: 'Crash test' } });
    expect(organization.status, organization.text).toBe(201);
    const project = await server.request('POST', '/api/projects', { body: { name: 'Under load', organizationId: organization.body.id } });
    expect(project.status, project.text).toBe(201);
    const projectId: string = project.body.id;

    for (let cycle = 0; cycle < byLoad(1, 5); cycle++) {
      /** Titles sent, and the id each acknowledged one was answered with. */
      const sent = new Set<string>();
      const acknowledged = new Map<string, string>();
      const unanswered = new Set<string>();
      const refusals: string[] = [];
      const target = byLoad(400, 2000);
      let enough!: () => void;
      const reached = new Promise<void>((resolve) => (enough = resolve));
      const writer = async (w: number) => {
        for (let n = 0; ; n++) {
          const title = `cycle ${cycle} writer ${w} write ${n}`;
          sent.add(title);
          let answer;
          try {
            answer = await server.request('POST', '/api/tasks', { body: { projectId, title, priority: n % 5 } });
          } catch {
            unanswered.add(title); // the connection died with the process: written or not, both are correct
            return;
          }
          counts.ran();
          counts.answered(answer.status);
          if (answer.status === 201) acknowledged.set(title, answer.body.id);
          else refusals.push(`${answer.status} ${answer.text.slice(0, 200)}`);
          if (acknowledged.size >= target) enough();
        }
      };
      const load = Array.from({ length: writers }, (_, w) => writer(w));
      await reached;
      await server.kill(); // mid-load: every writer has a request in flight
      await Promise.all(load);
      expect(refusals, 'creates refused under load').toEqual([]);
      expect(server.errorLines(), 'errors logged before the kill').toEqual([]);

      server = await start();
      const stored = await tasksOf(server, projectId);
      const lost = [...acknowledged].filter(([title, id]) => !stored.get(title)?.includes(id));
      const found = acknowledged.size - lost.length;
      const unknownWritten = [...unanswered].filter((title) => stored.has(title)).length;
      const phantoms = [...stored.keys()].filter((title) => title.startsWith(`cycle ${cycle} `) && !sent.has(title));
      const doubled = [...stored].filter(([title, ids]) => title.startsWith(`cycle ${cycle} `) && ids.length > 1).map(([title]) => title);
      const line = `cycle ${cycle + 1}: acknowledged ${acknowledged.size}, found ${found}, lost ${lost.length}, in flight (unknown) ${unanswered.size} (${unknownWritten} of them written)`;
      console.log(`crash test ${line}`);
      counts.note(line);
      figures.acknowledged! += acknowledged.size;
      figures.found! += found;
      figures.lost! += lost.length;
      figures.inFlightUnknown! += unanswered.size;
      expect(lost, 'acknowledged writes missing after the restart').toEqual([]);
      expect(phantoms, 'rows nobody sent').toEqual([]);
      expect(doubled, 'writes stored twice').toEqual([]);
      expect(unanswered.size, 'the kill came while writes were in flight').toBeGreaterThan(0);
    }
    // The restarted server takes writes as before.
    const after = await server.request('POST', '/api/tasks', { body: { projectId, title: 'after the restarts' } });
    expect(after.status, after.text).toBe(201);
    await server.stop();
  }, 240_000);
});
