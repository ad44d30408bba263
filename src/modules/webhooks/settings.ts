import { DEFAULT_WEBHOOK_MAX_CONSECUTIVE_FAILURES, DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION } from '../../config/config';

/** How deliveries are attempted; the defaults are the documented behaviour (docs/integrations.md "Webhooks"). */
export interface WebhookSettings {
  /** WEBHOOK_MAX_CONSECUTIVE_FAILURES: failed attempts in a row after which an endpoint is disabled. */
  maxConsecutiveFailures: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION: endpoints one organization may have (every event is one delivery per endpoint). */
  maxEndpointsPerOrganization: number;
  /** The waits before each retry, in milliseconds (each with ±10% jitter); after the last, a delivery FAILS. */
  retryDelaysMs: readonly number[];
  /** How long one attempt may take before it counts as failed. */
  timeoutMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The Standard Webhooks retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the first attempt. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const WEBHOOK_TIMEOUT_MS = 10 * SECOND;

/** The fraction of a wait it may be longer or shorter, so that retries of many deliveries spread out. */
const JITTER = 0.1;

export function webhookSettings(overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return {
    maxConsecutiveFailures: DEFAULT_WEBHOOK_MAX_CONSECUTIVE_FAILURES,
    maxEndpointsPerOrganization: DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION,
    retryDelaysMs: WEBHOOK_RETRY_DELAYS_MS,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
  };
}

/** The wait before the retry that follows `failedAttempts` failed attempts of a round; undefined when none is left. */
export function retryDelayMs(settings: WebhookSettings, failedAttempts: number): number | undefined {
  const base = settings.retryDelaysMs[failedAttempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + JITTER * (2 * Math.random() - 1)));
}
