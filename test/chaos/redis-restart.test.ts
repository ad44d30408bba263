import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase, withDatabase } from '../../src/database/database-url';
import { generateApiKey } from '../../src/modules/access/api-keys';
import { startServerProcess, until, type ServerProcess } from '../support/server-process';
import { call, expectCall, sleep, warnings, type Answer } from './support/client';
import { createCluster, createRedis, type ChaosCluster, type ChaosRedis } from './support/cluster';

/**
 * Redis (REDIS_URL: shared rate-limit counters) stopped and started again under load: the server goes on
 * answering (counting in the process meanwhile), /health reports Redis DOWN and then UP again within 10 s
 * of its return, and the outage costs one warning and one info line.
 */
const adminKey = generateApiKey();
const dataDir = mkdtempSync(join(tmpdir(), 'platform-chaos-redis-'));
let cluster: ChaosCluster;
let redis: ChaosRedis;
let server: ServerProcess;
let projectId: string;

beforeAll(async () => {
  cluster = await createCluster();
  await ensureDatabase(cluster.url, 'platform');
  redis = await createRedis();
  server = await startServerProcess({
    DATABASE_URL: withDatabase(cluster.url, 'platform'),
    REDIS_URL: redis.url,
    BOOTSTRAP_API_KEY: adminKey,
    DATA_DIR: dataDir,
    WORKER_CONCURRENCY: '1',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST_PER_SECOND: '1000000',
    RATE_LIMIT_USER_PER_MINUTE: '1000000',
  });
  const org = await expectCall(server.url, adminKey, 'POST', '/api/organizations', { name: `Redis chaos ${Date.now()}` }, 201);
  projectId = (await expectCall(server.url, adminKey, 'POST', '/api/projects', { name: 'Chaos', organizationId: org.id }, 201)).id;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  cluster?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

async function redisState(): Promise<string | undefined> {
  const health = await call(server.url, adminKey, 'GET', '/health');
  return health.body?.redis;
}

describe('Redis restarted under load', () => {
  it('keeps answering, reports Redis DOWN then UP within 10 s of its return, with one warning and one info line', async () => {
    expect(await redisState()).toBe('UP');
    const linesBefore = warnings(server.output()).length;
    const answers: Answer[] = [];
    let loading = true;
    const lane = async () => {
      for (let n = 0; loading; n++) {
        answers.push(await call(server.url, adminKey, 'POST', '/api/tasks', { projectId, title: `write ${n}` }));
        answers.push(await call(server.url, adminKey, 'GET', `/api/tasks?projectId=${projectId}&pageSize=5`));
      }
    };
    const lanes = [lane(), lane()];

    await sleep(1_000);
    await redis.stop();
    await until('/health to report Redis DOWN', async () => (await redisState()) === 'DOWN', 10_000);
    await sleep(2_000);
    await redis.start();
    const restartedAt = Date.now();
    await until('/health to report Redis UP', async () => (await redisState()) === 'UP', 10_000);
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    await sleep(500);
    loading = false;
    await Promise.all(lanes);

    // Service went on throughout: every write and read answered as without Redis.
    const failed = answers.filter((answer) => answer.status !== 200 && answer.status !== 201);
    expect(failed.map((answer) => `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);

    const lines = warnings(server.output()).slice(linesBefore);
    expect(lines.map((line) => line.msg)).toEqual(['rate limits: Redis unreachable, counting in this process until it returns']);
    expect(server.output()).toContain('rate limits: Redis reachable again, counters shared');
  });
});
