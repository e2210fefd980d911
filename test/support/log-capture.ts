import pino, { type Logger } from 'pino';

export interface CapturedLogs {
  logger: Logger;
  /** Everything written so far, as the raw JSON lines. */
  text(): string;
  /** Everything written so far, parsed. */
  records(): Array<Record<string, unknown>>;
}

/** A pino logger (every level) that writes into memory instead of stdout. */
export function captureLogs(): CapturedLogs {
  const chunks: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void chunks.push(line) });
  const text = () => chunks.join('');
  return {
    logger,
    text,
    records: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
