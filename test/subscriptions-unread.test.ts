import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callersOf, type Caller } from './support/callers';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, type TestServer } from './support/server';

/**
 * A client that subscribes many times and never reads its messages costs the server at most 16 MB of
 * unread messages for its user: past that, the connection the next message would go to is closed
 * (1008), and every other subscriber goes on receiving theirs.
 */
let server: TestServer;
let hoarding: Caller;
let projectId: string;
let taskId: string;

beforeAll(async () => {
  server = await startServer();
  // The hoarding user's own organization; the administrator reads it too.
  hoarding = await callersOf(() => server).newCaller('Hoarder');
  projectId = (await createProject(server, (await createOrganization(server, {}, hoarding.key)).id, {}, hoarding.key)).id;
  taskId = (await createTask(server, projectId, { title: 'watched' }, hoarding.key)).id;
});
const opened: RawConnection[] = [];
afterAll(async () => {
  for (const connection of opened) connection.close();
  await server.close();
});

const SUBSCRIPTION = 'subscription($p: ID!) { taskChanged(projectId: $p) { id title description } }';

/** A graphql-transport-ws connection spoken by hand, so that the test decides when its socket is read. */
class RawConnection {
  readonly next: unknown[] = [];
  readonly closed: Promise<number>;
  private readonly socket: WebSocket;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'next') this.next.push(message.payload);
    });
  }

  static async open(key: string): Promise<RawConnection> {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const acknowledged = new Promise((resolve) => socket.on('message', (data) => JSON.parse(data.toString()).type === 'connection_ack' && resolve(true)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': key } }));
    await acknowledged;
    return new RawConnection(socket);
  }

  subscribe(count: number): void {
    for (let i = 0; i < count; i++) {
      this.socket.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { p: projectId } } }));
    }
  }

  /** Stops reading the socket: what the server writes waits in its buffers. */
  pause(): void {
    (this.socket as unknown as { _socket: { pause(): void } })._socket.pause();
  }

  resume(): void {
    (this.socket as unknown as { _socket: { resume(): void } })._socket.resume();
  }

  close(): void {
    this.socket.terminate();
  }
}

const update = (body: Record<string, unknown>) => server.request('PUT', `/api/tasks/${taskId}`, { body, key: hoarding.key });

describe('unread messages of one user', () => {
  it("close the connection past 16 MB, and leave another user's subscriptions their messages", async () => {
    const reader = await RawConnection.open(server.adminKey);
    opened.push(reader);
    reader.subscribe(1);
    const hoarder = await RawConnection.open(hoarding.key);
    opened.push(hoarder);
    hoarder.subscribe(100);
    // Every subscription is live once a small change reaches all of them.
    await expect
      .poll(
        async () => {
          expect((await update({ title: `small ${Date.now()}` })).status).toBe(200);
          return hoarder.next.length >= 100 && reader.next.length >= 1;
        },
        { timeout: 10_000, interval: 300 },
      )
      .toBe(true);
    const before = { reader: reader.next.length };

    hoarder.pause();
    // One change of 900 KB: 100 messages of it would be 90 MB unread.
    expect((await update({ description: 'x'.repeat(900_000) })).status).toBe(200);
    await expect.poll(() => reader.next.length, { timeout: 10_000 }).toBeGreaterThan(before.reader);
    hoarder.resume();
    expect(await hoarder.closed).toBe(1008);
    // The other user's connection is open and goes on receiving.
    expect((await update({ title: 'after' })).status).toBe(200);
    await expect.poll(() => reader.next.length, { timeout: 10_000 }).toBeGreaterThan(before.reader + 1);
    const received = hoarder.next.filter((payload) => JSON.stringify(payload).length > 900_000).length;
    // What its buffers held when the bound was reached (16 MB: about 18 messages), never the 100.
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(30);
  });
});
