/** Settings read from the environment (names fixed by the design). */
export interface AppConfig {
  port: number;
  databaseUrl?: string;
  bootstrapApiKey?: string;
  rateLimitPerMinute: number;
  rateLimitBurstPerSecond: number;
  redisUrl?: string;
  dataDir: string;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function loadConfig(): AppConfig {
  return {
    port: positiveInteger('PORT', 8080),
    databaseUrl: process.env.DATABASE_URL || undefined,
    bootstrapApiKey: process.env.BOOTSTRAP_API_KEY || undefined,
    rateLimitPerMinute: positiveInteger('RATE_LIMIT_PER_MINUTE', 100),
    rateLimitBurstPerSecond: positiveInteger('RATE_LIMIT_BURST_PER_SECOND', 20),
    redisUrl: process.env.REDIS_URL || undefined,
    dataDir: process.env.DATA_DIR || '.data',
  };
}
