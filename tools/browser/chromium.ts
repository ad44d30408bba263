import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { WebSocket } from 'undici';

/**
 * Just enough of the Chrome DevTools Protocol to drive headless Chromium from a script or a test:
 * open a page, evaluate JavaScript in it, type, wait, take screenshots. No dependency beyond the
 * WebSocket client of undici (already a dependency) and a `chromium` binary.
 */

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** CHROMIUM_PATH, else the first of the usual Chromium or Chrome names found on PATH; undefined when none. */
export function findChromium(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    ...(process.env.PATH ?? '').split(delimiter).flatMap((dir) => (dir ? NAMES.map((name) => join(dir, name)) : [])),
  ];
  return candidates.find((file) => {
    if (!file) return false;
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

interface Pending {
  resolve(value: any): void;
  reject(error: Error): void;
}

type Listener = (params: any, sessionId?: string) => void;

class Connection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<Listener>>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => this.receive(String(event.data)));
    socket.addEventListener('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('the browser closed the DevTools connection'));
      this.pending.clear();
    });
  }

  static open(url: string): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener('open', () => resolve(new Connection(socket)), { once: true });
      socket.addEventListener('error', () => reject(new Error(`could not connect to ${url}`)), { once: true });
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(method: string, listener: Listener): () => void {
    const set = this.listeners.get(method) ?? new Set();
    set.add(listener);
    this.listeners.set(method, set);
    return () => set.delete(listener);
  }

  close(): void {
    this.socket.close();
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown; sessionId?: string };
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result);
      return;
    }
    for (const listener of this.listeners.get(message.method ?? '') ?? []) listener(message.params, message.sessionId);
  }
}

export class Browser {
  private constructor(
    private readonly process: ChildProcess,
    private readonly connection: Connection,
    private readonly profileDir: string,
  ) {}

  /** Starts headless Chromium with a fresh profile (empty local storage). */
  static async launch(executable: string): Promise<Browser> {
    const profileDir = mkdtempSync(join(tmpdir(), 'platform-chromium-'));
    const child = spawn(
      executable,
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        // Nothing but the pages' own requests: no QUIC, updates, sync or other background traffic.
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--no-default-browser-check',
        '--remote-debugging-port=0',
        `--user-data-dir=${profileDir}`,
        '--window-size=1280,900',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => reject(new Error(`Chromium did not start within 20 s: ${seen.slice(-500)}`)), 20_000);
        child.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const found = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
          if (found) {
            clearTimeout(timer);
            resolve(found[1]);
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`Chromium exited (${code}): ${seen.slice(-500)}`));
        });
      });
      return new Browser(child, await Connection.open(endpoint), profileDir);
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(profileDir, { recursive: true, force: true });
      throw error;
    }
  }

  async newPage(): Promise<Page> {
    const { targetId } = await this.connection.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.connection.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this.connection, sessionId);
    await page.init();
    return page;
  }

  async close(): Promise<void> {
    await this.connection.send('Browser.close').catch(() => undefined);
    this.connection.close();
    await new Promise<void>((resolve) => {
      if (this.process.exitCode !== null || this.process.signalCode !== null) return resolve();
      const timer = setTimeout(() => {
        this.process.kill('SIGKILL');
        resolve();
      }, 5_000);
      this.process.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

/** The keys `Page.press` knows, with the key codes editors read from keyboard events. */
const KEY_CODES = { Backspace: 8 } as const;

export class Page {
  /** Messages of dialogs the page opened (alert, confirm, prompt): each was dismissed at once. */
  readonly dialogs: string[] = [];
  /** Uncaught exceptions of the page's scripts. */
  readonly exceptions: string[] = [];
  /** Every HTTP answer the page received, in order. */
  readonly responses: { method: string; url: string; status: number }[] = [];

  constructor(
    private readonly connection: Connection,
    private readonly sessionId: string,
  ) {}

  async init(): Promise<void> {
    this.connection.on('Page.javascriptDialogOpening', (params, sessionId) => {
      if (sessionId !== this.sessionId) return;
      this.dialogs.push(`${params.type}: ${params.message}`);
      void this.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => undefined);
    });
    this.connection.on('Runtime.exceptionThrown', (params, sessionId) => {
      if (sessionId !== this.sessionId) return;
      this.exceptions.push(params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text ?? 'exception');
    });
    const methods = new Map<string, string>();
    this.connection.on('Network.requestWillBeSent', (params, sessionId) => {
      if (sessionId === this.sessionId) methods.set(params.requestId, params.request.method);
    });
    this.connection.on('Network.responseReceived', (params, sessionId) => {
      if (sessionId !== this.sessionId) return;
      this.responses.push({ method: methods.get(params.requestId) ?? 'GET', url: params.response.url, status: params.response.status });
    });
    await this.send('Page.enable');
    await this.send('Runtime.enable');
    await this.send('Network.enable');
    await this.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false });
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    return this.connection.send(method, params, this.sessionId);
  }

  /** Opens `url` and waits for its load event. */
  async goto(url: string): Promise<void> {
    const loaded = new Promise<void>((resolve) => {
      const stop = this.connection.on('Page.loadEventFired', (_params, sessionId) => {
        if (sessionId !== this.sessionId) return;
        stop();
        resolve();
      });
    });
    const { errorText } = await this.send('Page.navigate', { url });
    if (errorText) throw new Error(`could not open ${url}: ${errorText}`);
    await loaded;
  }

  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  async evaluate<T = unknown>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  }

  /** Waits until `expression` is truthy in the page, and answers its value. */
  async waitFor<T = unknown>(what: string, expression: string, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate<T>(expression).catch(() => undefined);
      if (value) return value;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${this.dialogs.length ? ` (dialogs: ${this.dialogs.join('; ')})` : ''}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Clicks the element `selector` finds (the DOM click, which React handlers receive). */
  async click(selector: string): Promise<void> {
    const found = await this.evaluate<boolean>(
      `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; e.scrollIntoView({ block: 'center' }); e.click(); return true; })()`,
    );
    if (!found) throw new Error(`nothing to click at ${selector}`);
  }

  /** Focuses the field `selector` finds, empties it and types `text` as keyboard input. */
  async type(selector: string, text: string): Promise<void> {
    const found = await this.evaluate<boolean>(
      `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; e.focus(); e.select?.(); return true; })()`,
    );
    if (!found) throw new Error(`no field at ${selector}`);
    await this.send('Input.insertText', { text });
  }

  /** Focuses the CodeMirror editor inside `selector`, selects all it holds and types `text` over it ('' empties it). */
  async typeInEditor(selector: string, text: string): Promise<void> {
    const found = await this.evaluate<boolean>(
      `(() => { const cm = document.querySelector(${JSON.stringify(selector)})?.CodeMirror; if (!cm) return false; cm.focus(); cm.execCommand('selectAll'); return true; })()`,
    );
    if (!found) throw new Error(`no editor at ${selector}`);
    // Inserting nothing would leave the selection in place: deleting it is a key press.
    if (text) await this.send('Input.insertText', { text });
    else await this.press('Backspace');
  }

  /** Presses and releases `key` in whatever has the focus. */
  async press(key: keyof typeof KEY_CODES): Promise<void> {
    const params = { key, code: key, windowsVirtualKeyCode: KEY_CODES[key] };
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...params });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...params });
  }

  async screenshot(file: string): Promise<string> {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
    writeFileSync(file, Buffer.from(data, 'base64'));
    return file;
  }
}
