import { generateKeyPairSync } from 'node:crypto';
import { readAnalyticsEmbedConfig, type AnalyticsEmbedOptions } from '../../../src/config/analytics-embed';

/** Analytics embed tokens configured (a fresh RS256 key), so that minting them runs rather than answering 503 (disabled). */
export function analyticsEmbedOptions(): AnalyticsEmbedOptions {
  const signingKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const config = readAnalyticsEmbedConfig({
    enabled: true,
    issuer: 'https://reliability.test',
    audience: 'analytics',
    keyId: 'reliability',
    models: ['tasks'],
    objects: ['dashboard:1'],
  });
  return { config, signingKeyPem };
}
