import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAnalyticsEmbedConfig } from '../src/config/analytics-embed';
import { loadConfig } from '../src/config/config';
import { loadConfigFile } from '../src/config/config-file';

/**
 * Analytics embed tokens (BEHAVIOURS.md "Analytics embed token"): the `analyticsEmbed` block of
 * CONFIG_FILE, the RS256 tokens of POST /api/analytics/embed-token and mintAnalyticsEmbedToken.
 */

const folder = mkdtempSync(join(tmpdir(), 'embed-config-'));

function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const YAML_BLOCK = `# settings
analyticsEmbed:
  enabled: true
  issuer: https://platform.example.test
  audience: analytics
  keyId: embed-1
  tokenTtlSeconds: 600
  models: [orders, invoices]
  objects:
    - dashboard:12
`;

const EXPECTED = {
  enabled: true,
  issuer: 'https://platform.example.test',
  audience: 'analytics',
  keyId: 'embed-1',
  tokenTtlSeconds: 600,
  models: ['orders', 'invoices'],
  objects: ['dashboard:12'],
  rowFilterField: 'org_slug',
};

describe('CONFIG_FILE', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads the analyticsEmbed block from YAML and from JSON alike, rowFilterField defaulting to org_slug', () => {
    const yaml = loadConfigFile(file('platform.config.yaml', YAML_BLOCK));
    expect(readAnalyticsEmbedConfig(yaml.analyticsEmbed)).toEqual(EXPECTED);
    const { rowFilterField: _default, ...written } = EXPECTED;
    const json = loadConfigFile(file('platform.config.json', JSON.stringify({ analyticsEmbed: written })));
    expect(readAnalyticsEmbedConfig(json.analyticsEmbed)).toEqual(EXPECTED);
  });

  it('is read by loadConfig with the key from ANALYTICS_EMBED_SIGNING_KEY_PEM', () => {
    vi.stubEnv('CONFIG_FILE', file('loaded.yml', YAML_BLOCK.replace('tokenTtlSeconds: 600', 'rowFilterField: tenant')));
    vi.stubEnv('ANALYTICS_EMBED_SIGNING_KEY_PEM', 'pem text');
    const config = loadConfig();
    expect(config.analyticsEmbed).toEqual({ ...EXPECTED, tokenTtlSeconds: 900, rowFilterField: 'tenant' });
    expect(config.analyticsEmbedSigningKeyPem).toBe('pem text');
  });

  it('without CONFIG_FILE and without ./platform.config.yaml, or without the block, the minter is disabled', () => {
    vi.stubEnv('CONFIG_FILE', '');
    expect(loadConfig().analyticsEmbed).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig(loadConfigFile(file('other.yaml', 'somethingElse: 1\n')).analyticsEmbed)).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig(loadConfigFile(file('empty.json', '')).analyticsEmbed)).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig({ enabled: false, issuer: 7 })).toEqual({ enabled: false });
  });

  it('refuses an unreadable or malformed file, and a malformed enabled block, naming the problem', () => {
    expect(() => loadConfigFile(join(folder, 'missing.yaml'))).toThrow(/CONFIG_FILE .*missing\.yaml: ENOENT/);
    expect(() => loadConfigFile(file('bad.json', '{"analyticsEmbed": '))).toThrow(/not valid JSON/);
    expect(() => loadConfigFile(file('bad.yaml', 'analyticsEmbed: [unclosed\n'))).toThrow(/not valid YAML/);
    expect(() => loadConfigFile(file('list.yaml', '- a\n- b\n'))).toThrow(/must be a mapping/);
    const enabled = { enabled: true, issuer: 'i', audience: 'a', keyId: 'k' };
    expect(() => readAnalyticsEmbedConfig({ ...enabled, issuer: undefined })).toThrow('analyticsEmbed.issuer is required when enabled');
    expect(() => readAnalyticsEmbedConfig({ ...enabled, models: 'orders' })).toThrow('analyticsEmbed.models must be a list of non-blank texts');
    expect(() => readAnalyticsEmbedConfig({ ...enabled, tokenTtlSeconds: -5 })).toThrow(/analyticsEmbed.tokenTtlSeconds must be a positive/);
    expect(() => readAnalyticsEmbedConfig({ ...enabled, enabled: 'yes' })).toThrow('analyticsEmbed.enabled must be true or false');
    expect(() => readAnalyticsEmbedConfig('on')).toThrow('analyticsEmbed must be a mapping');
  });
});
