import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config';
import { dataLakeTarget } from '../src/config/data-lake';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * The data lake on S3-compatible storage (DATA_LAKE_URL=s3://bucket/prefix, DATA_LAKE_S3_ENDPOINT),
 * against a real S3-protocol server (s3rver) started here, the records read back through the AWS SDK.
 */
const BUCKET = 'platform-lake';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

let store: S3rver;
let storeDir: string;
let endpoint: string;
let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let projectId: string;
const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  // The standard AWS variables carry the credentials, as in a deployment.
  process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
  storeDir = mkdtempSync(join(tmpdir(), 'platform-s3-'));
  store = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: storeDir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = (await store.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${port}`;
  server = await startServer({ dataLake: { kind: 's3', bucket: BUCKET, prefix: 'records/v1', endpoint } });
  member = await newCaller('LakeS3');
  const organizationId = (await createOrganization(server, { name: unique('LakeS3Org') }, member.key)).id;
  projectId = (await createProject(server, organizationId, {}, member.key)).id;
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  rmSync(storeDir, { recursive: true, force: true });
  process.env.AWS_ACCESS_KEY_ID = savedEnv.id;
  process.env.AWS_SECRET_ACCESS_KEY = savedEnv.secret;
  if (savedEnv.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
  if (savedEnv.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
});

const reader = () => new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDENTIALS });

async function objectKeys(prefix: string): Promise<string[]> {
  const listed = await reader().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!);
}

async function objectJson(key: string): Promise<Record<string, unknown>> {
  const got = await reader().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return JSON.parse(await got.Body!.transformToString());
}

/** `data_lake_writes_total` of a server, by result. */
async function lakeWrites(target: TestServer): Promise<Record<string, number>> {
  const text = (await target.request('GET', '/metrics')).text;
  return Object.fromEntries([...text.matchAll(/^data_lake_writes_total\{result="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('DATA_LAKE_URL', () => {
  it('names a folder (file:///path) or a bucket and key prefix (s3://bucket/prefix), with an optional S3-compatible endpoint', () => {
    expect(dataLakeTarget(undefined, '/srv/lake', undefined)).toEqual({ kind: 'file', dir: '/srv/lake' });
    expect(dataLakeTarget('file:///var/lib/platform/lake', '/srv/lake', undefined)).toEqual({ kind: 'file', dir: '/var/lib/platform/lake' });
    expect(dataLakeTarget('s3://analytics-lake/platform/records/', '/srv/lake', undefined)).toEqual({
      kind: 's3',
      bucket: 'analytics-lake',
      prefix: 'platform/records',
    });
    expect(dataLakeTarget('s3://analytics-lake', '/srv/lake', 'http://minio:9000')).toEqual({
      kind: 's3',
      bucket: 'analytics-lake',
      prefix: '',
      endpoint: 'http://minio:9000',
    });
  });

  it.each(['s3://', 's3://Bad_Bucket/x', 'http://example.com/lake', 'lake', 's3://lake/x?versionId=1', 'ftp://host/lake'])(
    'refuses %s, naming the variable',
    (url) => {
      expect(() => dataLakeTarget(url, '/srv/lake', undefined)).toThrow(/^DATA_LAKE_URL must be file:\/\/\/path or s3:\/\/bucket\/prefix, got/);
    },
  );

  it('refuses an endpoint that is not an http(s) URL, naming DATA_LAKE_S3_ENDPOINT', () => {
    expect(() => dataLakeTarget('s3://lake', '/srv/lake', 'minio:9000')).toThrow('DATA_LAKE_S3_ENDPOINT must be an http:// or https:// URL, got "minio:9000"');
  });

  it('wins over DATA_LAKE_DIR', () => {
    const saved = { url: process.env.DATA_LAKE_URL, dir: process.env.DATA_LAKE_DIR };
    try {
      process.env.DATA_LAKE_DIR = '/srv/lake';
      process.env.DATA_LAKE_URL = 's3://analytics-lake/records';
      expect(loadConfig().dataLake).toEqual({ kind: 's3', bucket: 'analytics-lake', prefix: 'records' });
      delete process.env.DATA_LAKE_URL;
      expect(loadConfig().dataLake).toEqual({ kind: 'file', dir: '/srv/lake' });
    } finally {
      for (const [name, value] of [
        ['DATA_LAKE_URL', saved.url],
        ['DATA_LAKE_DIR', saved.dir],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe('the data lake in an S3 bucket', () => {
  it('holds a lock record under the prefix and the record key, readable through the SDK', async () => {
    const task = await createTask(server, projectId, { title: unique('Locked') }, member.key);
    const locked = await rest(member, 'PUT', `/api/tasks/${task.id}/lock`, 200);
    const at = new Date(locked.lockedAt);
    const key = `records/v1/task-locks/${at.toISOString().slice(0, 10).replaceAll('-', '/')}/${task.id}-${at.getTime()}.json`;
    expect(await objectKeys(`records/v1/task-locks/`)).toContain(key);
    expect(await objectJson(key)).toEqual({ taskId: task.id, lockedAt: locked.lockedAt, taskStatus: null, projectId, documentFamilyIds: [], properties: {} });
    expect((await lakeWrites(server)).written).toBeGreaterThanOrEqual(1);
  });

  it('never fails or undoes the lock when the store cannot be reached: retried, then counted as failed and logged', async () => {
    const unreachable = await startServer({
      dataLake: { kind: 's3', bucket: BUCKET, prefix: 'unreachable', endpoint: `http://127.0.0.1:${await closedPort()}` },
    });
    try {
      const task = await createTask(server, projectId, { title: unique('Unstored') }, member.key);
      const locked = await unreachable.request('PUT', `/api/tasks/${task.id}/lock`, { key: member.key });
      expect(locked.status, locked.text).toBe(200);
      expect(locked.body.locked).toBe(true);
      expect((await rest(member, 'GET', `/api/tasks/${task.id}`, 200)).locked).toBe(true);
      // The second and third attempts come 250 ms and 1 s after the first: given up on within seconds.
      const deadline = Date.now() + 15_000;
      while ((await lakeWrites(unreachable)).failed !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await lakeWrites(unreachable)).toEqual({ written: 0, failed: 1 });
      expect(await objectKeys('unreachable/')).toEqual([]);
    } finally {
      await unreachable.close();
    }
  });
});
