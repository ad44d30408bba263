import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { logger } from './logger';

/**
 * One line per answered request (method, path, status, time); credentials are redacted by the logger
 * and request bodies are never logged. Health probes are left out.
 */
export const accessLog = pinoHttp({
  logger,
  autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' },
  customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  serializers: {
    req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
    res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
  },
});
