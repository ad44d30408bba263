import { spawn, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readAiGatewayConfig } from '../src/config/ai-gateway';
import { readAnalyticsEmbedConfig } from '../src/config/analytics-embed';
import { parseConfigText } from '../src/config/config-file';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { openDatabase } from '../src/database/orm';
import { OpenAiUpstream } from './support/openai-upstream';
import { startServer, type TestServer } from './support/server';

/**
 * Every shell example of the docs runs as written on a fresh database, in order, with its variables
 * set by earlier steps: the ```sh blocks of README.md and docs/*.md that call curl on localhost:8080,
 * those of one page in one bash process (a variable set by a block is seen by the next ones), against
 * a real server on a database of the page's own. The only rewrites: localhost:8080 becomes that
 * server, and a line `NAME=...` (a value the reader supplies) gets the value made here (KEY is the
 * administrator's key). `curl` is a function that runs the real curl and stops the page, naming the
 * docs line, on a connection failure, a 5xx, a status other than the one a comment right after the
 * command shows (`# 201 {...}`, `... # 304`), or, where none is shown, a 4xx.
 *
 * What the examples reach beyond the server runs here too: the AI provider is an OpenAI-compatible
 * stub on 127.0.0.1 (the page's own aiGateway block, its baseUrl moved there), and the CRM of the
 * service bridge example, https://crm.example.com, is an HTTPS stub: the egress guard's resolver maps
 * the name to 127.0.0.1, and TLS connections to that name trust the stub's certificate and reach its port.
 */

const root = join(__dirname, '..');
const HOST = 'localhost:8080';
const CRM_HOST = 'crm.example.com';
const JWT_ISSUER = 'https://identity.example.com/';
const JWT_AUDIENCE = 'platform';
const OPENAI_KEY_VARIABLE = 'OPENAI_API_KEY';
const CRM_TOKEN = 'crm-token-of-the-docs-examples';

interface CurlCommand {
  /** The docs line the command starts on (1-based). */
  line: number;
  text: string;
  /** The status a comment right after the command shows, if any. */
  expected?: number;
}

interface Block {
  /** The line of the block's first line of code (1-based). */
  line: number;
  lines: string[];
}

interface Page {
  file: string;
  blocks: Block[];
  commands: CurlCommand[];
}

/** The ```sh (or ```bash) blocks of a markdown text. */
function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let inOther = false;
  markdown.split('\n').forEach((text, index) => {
    const fence = /^```(\S*)\s*$/.exec(text);
    if (current) {
      if (/^```\s*$/.test(text)) {
        blocks.push(current);
        current = undefined;
      } else current.lines.push(text);
    } else if (inOther) {
      if (/^```\s*$/.test(text)) inOther = false;
    } else if (fence) {
      if (fence[1] === 'sh' || fence[1] === 'bash') current = { line: index + 2, lines: [] };
      else inOther = true;
    }
  });
  return blocks;
}

/**
 * The curl commands of a block as a shell reads them: a command goes on while a quote is open or its
 * line ends with `\`; `#` at the start of a word outside quotes begins a comment. The status expected
 * is the first word of the comment on the command's last line or, without one, of a comment line
 * right after it, when that word is a status (`# 201 {...}`, `# 304`).
 */
function curlCommands(block: Block): CurlCommand[] {
  const commands: CurlCommand[] = [];
  let single = false;
  let double = false;
  let start = -1;
  let text: string[] = [];
  let unquoted = '';
  const statusOf = (comment: string | undefined) => {
    const match = comment === undefined ? null : /^#\s*([1-5]\d\d)(?!\S)/.exec(comment.trim());
    return match ? Number(match[1]) : undefined;
  };
  block.lines.forEach((line, index) => {
    if (start < 0) {
      start = index;
      text = [];
      unquoted = '';
    }
    text.push(line);
    let comment: string | undefined;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (single) {
        if (c === "'") single = false;
      } else if (double) {
        if (c === '\\') i++;
        else if (c === '"') double = false;
      } else if (c === '\\') {
        i++;
      } else if (c === "'") single = true;
      else if (c === '"') double = true;
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
        comment = line.slice(i);
        break;
      } else unquoted += c;
    }
    unquoted += ' ';
    const code = comment === undefined ? line : line.slice(0, line.length - comment.length);
    if (single || double || /\\\s*$/.test(code)) return;
    if (/(^|[\s;|&(])curl\s/.test(unquoted)) {
      const next = block.lines[index + 1];
      const expected = comment !== undefined ? statusOf(comment) : next?.trim().startsWith('#') ? statusOf(next) : undefined;
      commands.push({ line: block.line + start, text: text.join('\n'), expected });
    }
    start = -1;
  });
  return commands;
}

/** README.md and docs/*.md with their blocks that call curl on localhost:8080. */
function pagesWithExamples(): Page[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  return files
    .map((file) => {
      const blocks = shellBlocks(readFileSync(join(root, file), 'utf8')).filter(
        (block) => block.lines.some((line) => line.includes(HOST)) && curlCommands(block).length > 0,
      );
      return { file, blocks, commands: blocks.flatMap(curlCommands) };
    })
    .filter((page) => page.blocks.length > 0);
}

/** The YAML block of a docs page that holds `key`, read as CONFIG_FILE reads it. */
function configBlockOf(file: string, key: string): unknown {
  const yaml = readFileSync(join(root, file), 'utf8')
    .split(/^```yaml\n/m)
    .slice(1)
    .map((part) => part.split(/^```/m)[0])
    .find((text) => new RegExp(`^${key}:`, 'm').test(text));
  if (!yaml) throw new Error(`${file} has no yaml block with ${key}`);
  return parseConfigText(yaml, `${file}.yaml`)[key];
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Runs the real curl, records what it answered and stops the page on a failure (see the file's comment). */
const PRELUDE = String.raw`set -euo pipefail
curl() {
  local n out status rc=0 expected
  n=$(( $(cat "$DOCS_STATE/count") + 1 ))
  echo "$n" > "$DOCS_STATE/count"
  out="$DOCS_STATE/answer.$n"
  status=$(command curl -sS --max-time 20 "$@" -o "$out" -w '%{http_code}' 2>"$out.stderr") || rc=$?
  expected=$(sed -n "$n"p "$DOCS_STATE/expected")
  echo "$n $rc $status" >> "$DOCS_STATE/calls"
  if [ -z "$expected" ] || [ "$rc" != 0 ] || [ "$status" -ge 500 ] || { [ "$expected" = - ] && [ "$status" -ge 400 ]; } ||
     { [ "$expected" != - ] && [ "$status" != "$expected" ]; }; then
    echo "$n $rc $status" >> "$DOCS_STATE/failures"
    exit 1
  fi
  cat "$out"
}
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBash(script: string, cwd: string, state: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, LANG: 'C.UTF-8', DOCS_STATE: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The examples of `page` against `api`, `supplied` giving the `NAME=...` lines: the problem found, if any. */
async function runPage(page: Page, api: TestServer, supplied: Record<string, string>): Promise<string | undefined> {
  const work = mkdtempSync(join(tmpdir(), 'docs-examples-'));
  try {
    const state = join(work, '.state');
    mkdirSync(state);
    const cwd = join(work, 'shell');
    mkdirSync(cwd);
    writeFileSync(join(state, 'count'), '0\n');
    writeFileSync(join(state, 'expected'), page.commands.map((command) => command.expected ?? '-').join('\n') + '\n');
    writeFileSync(join(state, 'calls'), '');
    writeFileSync(join(state, 'failures'), '');

    const host = new URL(api.url).host;
    const script = PRELUDE.split('\n');
    /** The docs line of each script line (1-based script lines). */
    const docsLine: (number | undefined)[] = script.map(() => undefined);
    for (const block of page.blocks) {
      block.lines.forEach((line, index) => {
        const at = block.line + index;
        let text = line.split(HOST).join(host);
        const reader = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)=\.\.\.(\s+#.*)?$/.exec(text);
        if (reader) {
          const [, indent, name, comment = ''] = reader;
          const value = name === 'KEY' ? api.adminKey : supplied[name];
          if (value === undefined) throw new Error(`${page.file}:${at}: nothing supplies ${name}=... (a value the reader supplies)`);
          text = `${indent}${name}=${shellQuote(value)}${comment}`;
        }
        script.push(text);
        docsLine.push(at);
      });
    }
    const scriptFile = join(state, 'examples.sh');
    writeFileSync(scriptFile, script.join('\n') + '\n');

    const run = await runBash(scriptFile, cwd, state);
    const records = (name: string) =>
      readFileSync(join(state, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split(' '));
    const calls = records('calls');
    const failure = records('failures')[0];
    const stderr = run.stderr
      .split(`${scriptFile}: `)
      .join('')
      .replace(/line (\d+)/g, (whole, n) => (docsLine[Number(n) - 1] ? `${page.file}:${docsLine[Number(n) - 1]}` : whole))
      .trim();

    if (failure) {
      const [n, rc, status] = failure;
      const command = page.commands[Number(n) - 1];
      if (!command) return `${page.file}: curl was called ${n} times, the docs show ${page.commands.length} curl commands`;
      const read = (name: string) => (existsSync(join(state, name)) ? readFileSync(join(state, name), 'utf8').trim() : '');
      const answer = read(`answer.${n}`).slice(0, 2000);
      const what =
        rc !== '0'
          ? `curl failed (exit ${rc}): ${read(`answer.${n}.stderr`) || 'no message'}`
          : `answered ${status}, ${command.expected ? `the docs show ${command.expected}` : 'an error where the docs show none'}:\n${answer}`;
      return `${page.file}:${command.line}: ${command.text}\n→ ${what}`;
    }
    if (run.code !== 0) {
      const last = page.commands[calls.length - 1];
      return `${page.file}: the examples stopped (bash exit ${run.code}) after ${calls.length} of ${page.commands.length} curl commands${
        last ? ` (the last one ran: line ${last.line})` : ''
      }:\n${stderr.slice(-2000)}`;
    }
    if (calls.length !== page.commands.length) return `${page.file}: ${calls.length} curl commands ran, the docs show ${page.commands.length}`;
    return undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// What the examples reach beyond the server, and the values the reader supplies.

const serverUrl = inject('databaseUrl');
const stamp = `${process.pid}_${Date.now()}`;
const templateDatabase = `platform_docs_${stamp}`;
const pageDatabases: string[] = [];
const pages = pagesWithExamples();

type Jose = typeof import('jose');
let jose: Jose;
let jwtKeys: Awaited<ReturnType<Jose['generateKeyPair']>>;
let upstream: OpenAiUpstream;
let crm: HttpsServer;
const crmRequests: { method: string; url: string; authorization?: string }[] = [];
const originalTlsConnect = tls.connect;
const originalOpenAiKey = process.env[OPENAI_KEY_VARIABLE];
const embedSigningKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A self-signed certificate of crm.example.com. */
function makeCrmCertificate(): { key: string; cert: string } {
  const folder = mkdtempSync(join(tmpdir(), 'docs-crm-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${CRM_HOST}`,
        '-addext',
        `subjectAltName=DNS:${CRM_HOST}`,
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ],
      { cwd: folder, stdio: 'ignore' },
    );
    return { key: readFileSync(join(folder, 'key.pem'), 'utf8'), cert: readFileSync(join(folder, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The answer of a request that must succeed (201 unless told). */
async function succeeded(api: TestServer, path: string, body: Record<string, unknown>, method = 'POST', status = 201): Promise<any> {
  const answer = await api.request(method, path, { body });
  expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
  return answer.body;
}

/** The values of a page's `NAME=...` lines besides KEY, made through the API. */
const supply: Record<string, (api: TestServer) => Promise<Record<string, string>>> = {
  'docs/access.md': async (api) => {
    const jwt = await new jose.SignJWT({ email: 'dana@example.com', email_verified: true, given_name: 'Dana', family_name: 'Reyes' })
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject('idp|dana')
      .setIssuer(JWT_ISSUER)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(jwtKeys.privateKey);
    return { JWT: jwt, ORG: (await succeeded(api, '/api/organizations', { name: 'Acme Corp' })).id };
  },
  'docs/automation.md': async (api) => {
    const acme = await succeeded(api, '/api/organizations', { name: 'Acme Corp' });
    const globex = await succeeded(api, '/api/organizations', { name: 'Globex' });
    const template = await succeeded(api, '/api/project-templates', {
      organizationId: globex.id,
      name: 'Onboarding',
      slug: 'onboarding',
      taskStatuses: [{ slug: 'todo', label: 'To do', statusType: 'TODO' }],
      documentStatuses: [{ slug: 'new', status: 'New', statusType: 'UNRESOLVED' }],
      activityPlans: [{ slug: 'review', name: 'Review', steps: [{ ref: 'check', name: 'Check', stepType: 'SCRIPT', options: { expression: 'true' } }] }],
      triggers: [{ slug: 'on-create', name: 'On create', eventKind: 'task_created', activityPlanRef: 'review', enabled: true }],
    });
    const project = await succeeded(api, '/api/projects', {
      organizationId: globex.id,
      name: 'Lighthouse',
      projectTemplateRef: 'project-template://globex/onboarding',
    });
    await succeeded(
      api,
      `/api/project-templates/${template.id}`,
      { taskStatuses: [...template.taskStatuses, { slug: 'done', label: 'Done', statusType: 'DONE' }] },
      'PUT',
      200,
    );
    return { ORG: acme.id, PROJECT: project.id };
  },
  'docs/integrations.md': async (api) => {
    const organization = await succeeded(api, '/api/organizations', { name: 'Acme Corp' });
    await succeeded(api, `/api/organizations/${organization.id}/secrets`, { name: 'CRM_TOKEN', value: CRM_TOKEN });
    return { ORG: organization.id };
  },
  'docs/rest.md': async (api) => {
    const organization = await succeeded(api, '/api/organizations', { name: 'Acme Corp' });
    const project = await succeeded(api, '/api/projects', { organizationId: organization.id, name: 'Harbour' });
    const task = await succeeded(api, '/api/tasks', { projectId: project.id, title: 'Intake' });
    for (const title of ['Intake call', 'Intake review', 'Intake signed']) await succeeded(api, `/api/tasks/${task.id}`, { title }, 'PUT', 200);
    return { PROJECT: project.id, TASK: task.id };
  },
};

/** What an example must have done besides answering, checked once its page ran. */
const outcomes: Record<string, (api: TestServer) => Promise<void>> = {
  'docs/ai-gateway.md': async () => {
    expect(upstream.received.map((r) => [r.body.model, r.body.stream, r.headers.authorization])).toEqual([['gpt-4o-mini', true, 'Bearer sk-docs-examples']]);
  },
  'docs/integrations.md': async () => {
    expect(crmRequests).toEqual([{ method: 'GET', url: '/api/customers?id=42', authorization: `Bearer ${CRM_TOKEN}` }]);
  },
  'docs/automation.md': async (api) => {
    await expect
      .poll(async () => (await api.request('GET', `/api/tasks?filter=${encodeURIComponent("title=='Review Harbour (EU)'")}`)).body?.content?.length, {
        timeout: 10_000,
      })
      .toBe(1);
  },
};

/** A database of its own for a page: a copy of the migrated, untouched template database. */
async function freshDatabase(): Promise<string> {
  const name = `${templateDatabase}_${pageDatabases.length}`;
  pageDatabases.push(name);
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database "${name}" template "${templateDatabase}"`);
        break;
      } catch (error) {
        // The template's last connections may take a moment to end.
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

beforeAll(async () => {
  jose = await import('jose');
  jwtKeys = await jose.generateKeyPair('RS256');
  upstream = await OpenAiUpstream.start();
  process.env[OPENAI_KEY_VARIABLE] = 'sk-docs-examples';

  const certificate = makeCrmCertificate();
  crm = createHttpsServer(certificate, (req, res) => {
    crmRequests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: '42', name: 'Harbour Logistics' }));
  });
  await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
  const crmPort = (crm.address() as AddressInfo).port;
  tls.connect = ((...args: any[]) => {
    const options = args[0];
    if (options && typeof options === 'object' && options.servername === CRM_HOST) args[0] = { ...options, port: crmPort, ca: [certificate.cert] };
    return (originalTlsConnect as any).apply(tls, args);
  }) as typeof tls.connect;

  await ensureDatabase(serverUrl, templateDatabase);
  await (await openDatabase(withDatabase(serverUrl, templateDatabase))).close();
});

afterAll(async () => {
  tls.connect = originalTlsConnect;
  if (originalOpenAiKey === undefined) delete process.env[OPENAI_KEY_VARIABLE];
  else process.env[OPENAI_KEY_VARIABLE] = originalOpenAiKey;
  await upstream?.close();
  await new Promise((resolve) => (crm ? crm.close(resolve) : resolve(undefined)));
  for (const name of [...pageDatabases, templateDatabase]) await dropDatabase(serverUrl, name);
});

describe('the shell examples of the docs', () => {
  it('are found in the pages that have them, every curl command counted', () => {
    expect(pages.map((page) => page.file)).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/access.md',
        'docs/ai-gateway.md',
        'docs/automation.md',
        'docs/integrations.md',
        'docs/operating.md',
        'docs/rest.md',
      ]),
    );
    expect(pages.reduce((sum, page) => sum + page.commands.length, 0)).toBeGreaterThanOrEqual(26);
  });

  it.each(pages.map((page) => [page.file, page] as const))(
    '%s: every example runs as written',
    async (file, page) => {
      const api = await startServer({
        databaseUrl: await freshDatabase(),
        workerConcurrency: 1,
        jwt: {
          publicKeyPem: await jose.exportSPKI(jwtKeys.publicKey),
          issuer: JWT_ISSUER,
          audience: JWT_AUDIENCE,
          clockToleranceSeconds: 30,
          jwksCooldownMs: 30_000,
        },
        analyticsEmbed: { config: readAnalyticsEmbedConfig(configBlockOf('docs/access.md', 'analyticsEmbed')), signingKeyPem: embedSigningKey },
        aiGateway: (() => {
          const config = readAiGatewayConfig(configBlockOf('docs/ai-gateway.md', 'aiGateway'));
          return { providers: { ...config.providers, openai: { ...config.providers.openai, baseUrl: upstream.baseUrl } } };
        })(),
        egress: {
          privateHostAllowlist: ['127.0.0.1', CRM_HOST],
          resolve: async (hostname) => (hostname === CRM_HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
        },
      });
      try {
        const supplied = (await supply[file]?.(api)) ?? {};
        const problem = await runPage(page, api, supplied);
        if (problem) throw new Error(problem);
        await outcomes[file]?.(api);
      } finally {
        await api.close();
      }
    },
    120_000,
  );
});
