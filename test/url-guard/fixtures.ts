import type { Logger, Organization } from '../../core';

export const organization: Organization = {
  id: 'acme',
  name: 'Acme',
  domain: 'acme.link',
  scheme: 'https',
  active: true,
  keyHash: '0'.repeat(64),
};

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  object: object;
}

/** A logger that remembers what was logged, for tests that assert on warnings. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (first: object | string, message?: string): void => {
      if (typeof first === 'string') entries.push({ level, message: first, object: {} });
      else entries.push({ level, message: message ?? '', object: first });
    };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
