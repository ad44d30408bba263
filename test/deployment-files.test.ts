import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ENV } from '../src/config/variables';

/**
 * The compose file and the systemd unit agree with the server: they set variables it reads, wait for
 * what it needs, and start what `npm start` starts. (The image's steps run in `npm run test:operating`.)
 */

const ROOT = join(__dirname, '..');
const known = new Set(Object.keys(ENV));

/** What `npm start` runs once dist/ is there: `node <options> dist/src/main.js`. */
function startCommand(): string {
  const start: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  return /exec (node .*dist\/src\/main\.js)$/.exec(start)![1];
}

describe('compose.yaml', () => {
  const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { services: Record<string, any> };

  it('runs the image built here with PostgreSQL and Redis, starting it once both answer their health checks', () => {
    const { api, postgres, redis } = compose.services;
    expect(api.build).toBe('.');
    expect(api.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    expect(postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(redis.healthcheck.test).toContain('ping');
    expect(api.environment.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\/platform$/);
    expect(api.environment.REDIS_URL).toBe('redis://redis:6379');
    expect(api.volumes).toContain('api-data:/app/data');
  });

  it('sets only variables the server reads, and requires SECRETS_KEY', () => {
    const names = Object.keys(compose.services.api.environment);
    expect(names.filter((name) => !known.has(name))).toEqual([]);
    expect(compose.services.api.environment.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
  });

  it('gives the graceful shutdown more time than SHUTDOWN_GRACE_SECONDS', () => {
    const grace = Number(/^(\d+)s$/.exec(compose.services.api.stop_grace_period)![1]);
    expect(grace).toBeGreaterThan(Number(ENV.SHUTDOWN_GRACE_SECONDS.default));
  });
});

describe('deploy/platform-api.service', () => {
  const unitFile = join(ROOT, 'deploy', 'platform-api.service');
  const unit = readFileSync(unitFile, 'utf8');
  const setting = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1];

  it('starts what npm start starts, as an unprivileged user, with DATA_DIR in its state directory', () => {
    expect(setting('ExecStart')).toBe(`/usr/bin/${startCommand()}`);
    expect(setting('User')).toBe('platform');
    expect(setting('Environment')).toContain(`DATA_DIR=/var/lib/${setting('StateDirectory')}`);
    expect(setting('KillSignal')).toBe('SIGTERM');
    expect(Number(/^(\d+)s$/.exec(setting('TimeoutStopSec')!)![1])).toBeGreaterThan(Number(ENV.SHUTDOWN_GRACE_SECONDS.default));
  });

  it.skipIf(!existsSync('/usr/bin/systemd-analyze'))('passes systemd-analyze verify', () => {
    expect(() => execFileSync('systemd-analyze', ['verify', unitFile], { stdio: 'pipe' })).not.toThrow();
  });
});
