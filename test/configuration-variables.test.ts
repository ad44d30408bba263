import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config';
import { InvalidVariable } from '../src/config/invalid-configuration';
import { parseTrustProxy } from '../src/config/trust-proxy';
import { ENV, VARIABLES } from '../src/config/variables';

/**
 * The list of variables in the code (src/config/variables.ts) is the one list: .env.example and
 * docs/configuration.md name every variable on it with its default, and nothing else; no source file
 * reads a variable that is not on it.
 */

const ROOT = join(__dirname, '..');
const registered = new Set(VARIABLES.map((variable) => variable.name));

/** `# NAME=value` lines of .env.example: the value each shows. */
function envExample(): Map<string, string> {
  const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n');
  return new Map(lines.flatMap((line) => [...line.matchAll(/^#\s?([A-Z][A-Z0-9_]+)=(.*)$/g)].map((match) => [match[1], match[2]] as [string, string])));
}

/** The rows of the variables table of docs/configuration.md: the names of the first cell, and the default cell. */
function documentedRows(): { names: string[]; defaultCell: string }[] {
  const text = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^\| `[A-Z]/.test(line))
    .map((line) => {
      const cells = line.split(' | ');
      return { names: [...cells[0].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]), defaultCell: cells[cells.length - 1] };
    });
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the list of environment variables', () => {
  it('.env.example names every variable, with its default where it has one', () => {
    const example = envExample();
    for (const variable of VARIABLES) {
      expect(example.has(variable.name), `${variable.name} is missing from .env.example`).toBe(true);
      if (variable.default !== undefined) expect(example.get(variable.name), `${variable.name}'s default in .env.example`).toBe(variable.default);
    }
  });

  it('.env.example names no variable the server does not read', () => {
    expect([...envExample().keys()].filter((name) => !registered.has(name))).toEqual([]);
  });

  it('docs/configuration.md has a row for every variable, its default in the default column', () => {
    const rows = documentedRows();
    for (const variable of VARIABLES) {
      const row = rows.find((candidate) => candidate.names.includes(variable.name));
      expect(row, `${variable.name} is missing from docs/configuration.md`).toBeDefined();
      if (variable.default !== undefined) expect(row!.defaultCell, `${variable.name}'s default in docs/configuration.md`).toContain(`\`${variable.default}\``);
    }
  });

  it('docs/configuration.md documents no variable the server does not read', () => {
    expect(documentedRows().flatMap((row) => row.names.filter((name) => !registered.has(name)))).toEqual([]);
  });

  it('every variable a source file reads by name is on the list (NODE_ENV is the libraries’)', () => {
    const unlisted: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])/g)) {
        const name = match[1] ?? match[2];
        if (name !== 'NODE_ENV' && !registered.has(name)) unlisted.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it('every default on the list is what the variable reads when unset', () => {
    for (const variable of VARIABLES) {
      if (variable.default === undefined) continue;
      const value = variable.read({});
      expect(String(value === false ? 0 : value === true ? 1 : value), variable.name).toBe(variable.default);
    }
  });
});

describe('reading variables', () => {
  it('takes what each kind allows, an empty value as unset', () => {
    expect(ENV.PORT.read({ PORT: '9090' })).toBe(9090);
    expect(ENV.PORT.read({ PORT: '' })).toBe(8080);
    expect(ENV.AUTH_CACHE_SECONDS.read({ AUTH_CACHE_SECONDS: '0' })).toBe(0);
    expect(ENV.METRICS_PUBLIC.read({ METRICS_PUBLIC: 'TRUE' })).toBe(true);
    expect(ENV.LOG_LEVEL.read({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(ENV.REDIS_URL.read({ REDIS_URL: 'rediss://cache:6380' })).toBe('rediss://cache:6380');
    expect(ENV.DATABASE_URL.read({ DATABASE_URL: 'postgresql://app@db/platform' })).toBe('postgresql://app@db/platform');
  });

  it.each([
    ['PORT', '0', 'PORT must be an integer from 1 to 65535, got "0"'],
    ['RATE_LIMIT_PER_MINUTE', '1.5', 'RATE_LIMIT_PER_MINUTE must be a positive integer, got "1.5"'],
    ['AUTH_CACHE_SECONDS', '31', 'AUTH_CACHE_SECONDS must be an integer from 0 to 30, got "31"'],
    ['LOG_SQL', 'on', 'LOG_SQL must be 1 or 0 (true or false), got "on"'],
    ['LOG_LEVEL', 'INFO', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "INFO"'],
    ['DATABASE_URL', 'mysql://db/platform', 'DATABASE_URL must be a URL starting with postgres:// or postgresql://'],
    ['AUTH_JWT_JWKS_URL', 'not a url', 'AUTH_JWT_JWKS_URL must be a URL starting with https:// or http://'],
    ['AUTH_JWT_PUBLIC_KEY_PEM', 'not a key', 'AUTH_JWT_PUBLIC_KEY_PEM must be a public key in PEM (-----BEGIN PUBLIC KEY----- ...)'],
    ['SECRETS_KEY', 'c2hvcnQ=', 'SECRETS_KEY must be 32 bytes, base64-encoded (e.g. openssl rand -base64 32)'],
  ])('refuses %s=%s, naming it and what it may be', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(InvalidVariable);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('loadConfig reads the given environment, not only the process’s', () => {
    const config = loadConfig({ PORT: '9191', TRUST_PROXY: '2', EXPORT_MAX_ROWS: '10' });
    expect(config).toMatchObject({ port: 9191, trustProxy: 2, exportMaxRows: 10, webhookMaxConsecutiveFailures: 20 });
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['1', 1],
    ['3', 3],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8, 192.168.1.1/255.255.255.0, fd00::/8, ::1', ['loopback', '10.0.0.0/8', '192.168.1.1/255.255.255.0', 'fd00::/8', '::1']],
    ['uniquelocal,linklocal', ['uniquelocal', 'linklocal']],
  ])('reads %j as %j (Express’s trust proxy)', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });

  it.each(['true', 'everyone', '10.0.0.0/33', '10.0.0', '10.0.0.1/8/8', '-1', 'loopback,', '::1/129', 'fd00::/255.0.0.0'])(
    'refuses %j, naming TRUST_PROXY',
    (raw) => {
      expect(() => parseTrustProxy(raw)).toThrow(/^TRUST_PROXY must be a hop count \(0 or more\), or a comma-separated list of IP addresses, CIDR ranges/);
    },
  );
});
