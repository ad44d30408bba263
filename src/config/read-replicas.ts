import { InvalidConfiguration } from './invalid-configuration';

/** REPLICA_MAX_LAG_SECONDS unless set: a replica further behind than this serves no read. */
export const DEFAULT_REPLICA_MAX_LAG_SECONDS = 5;

/** The read replicas of the primary: DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_SECONDS. */
export interface ReadReplicaSettings {
  /** Connection strings, in the order given (their metrics and health names are replica-0, replica-1 ...). */
  urls: string[];
  maxLagSeconds: number;
}

/** A replica variable that cannot be used: the start stops with its message, which names the variable. */
export class ReadReplicaConfigError extends InvalidConfiguration {
  constructor(message: string) {
    super(message);
    this.name = 'ReadReplicaConfigError';
  }
}

/**
 * DATABASE_REPLICA_URLS (comma-separated postgres:// URLs) and REPLICA_MAX_LAG_SECONDS (a positive number
 * of seconds, default 5). Without replicas, undefined: every read goes to the primary.
 */
export function readReplicaSettings(urls: string | undefined, maxLag: string | undefined): ReadReplicaSettings | undefined {
  const maxLagSeconds = maxLagSecondsOf(maxLag);
  if (urls === undefined || urls.trim() === '') return undefined;
  const entries = urls.split(',').map((entry) => entry.trim());
  entries.forEach((entry, index) => checkReplicaUrl(entry, index));
  return { urls: entries, maxLagSeconds };
}

function maxLagSecondsOf(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_REPLICA_MAX_LAG_SECONDS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ReadReplicaConfigError(`REPLICA_MAX_LAG_SECONDS must be a positive number of seconds, got "${raw}"`);
  return value;
}

/** The message names the entry by position: the URL itself may hold a password. */
function checkReplicaUrl(entry: string, index: number): void {
  const refused = (why: string) => new ReadReplicaConfigError(`DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs: entry ${index + 1} ${why}`);
  if (entry === '') throw refused('is empty');
  let parsed: URL;
  try {
    parsed = new URL(entry);
  } catch {
    throw refused('is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw refused(`has the scheme "${parsed.protocol}"`);
  if (!parsed.hostname) throw refused('names no host');
}
