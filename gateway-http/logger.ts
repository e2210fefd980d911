import pino, { type Logger } from 'pino';

/**
 * The process logger: JSON lines. Nothing the service logs holds a secret (request lines carry
 * method, path, status and address only); redaction is a backstop for the top-level and request
 * fields a secret could land in. Exact paths, not wildcards: a wildcard path costs several
 * microseconds on every line.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'authorization',
        'organization_key',
        'token',
        'secret_key',
        'req.body',
      ],
      censor: '[redacted]',
    },
  });
}
