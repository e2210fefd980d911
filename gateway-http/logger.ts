import pino, { type Logger } from 'pino';

/**
 * The process logger: JSON lines on stdout, written asynchronously (pino's sonic-boom with
 * `sync: false`): a line is queued and written as soon as the write before it has finished, so
 * under load many lines go out in one write instead of a system call per request. pino flushes
 * what is queued when the process exits (its exit hook); a SIGKILL may lose the last lines.
 *
 * Nothing the service logs holds a secret (request lines carry method, path, status and address
 * only); redaction is a backstop for the top-level and request fields a secret could land in.
 * Exact paths, not wildcards: a wildcard path costs several microseconds on every line.
 */
export function createLogger(level: string): Logger {
  return pino(
    {
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
    },
    pino.destination({ dest: 1, sync: false }),
  );
}
