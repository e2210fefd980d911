import pino, { type Logger } from 'pino';

/** The process logger: JSON lines; any field that could hold a secret is redacted as a backstop. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'authorization',
        'organization_key',
        '*.organization_key',
        'token',
        '*.token',
        'secret_key',
        '*.secret_key',
      ],
      censor: '[redacted]',
    },
  });
}
