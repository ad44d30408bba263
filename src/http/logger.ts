import pino from 'pino';

/** One process-wide structured logger; credentials never reach it (see redact). */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  redact: ['req.headers["x-api-key"]', 'req.headers["x-access-token"]', 'req.headers.authorization'],
});
