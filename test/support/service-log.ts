/** One JSON log line of the service (pino: every line names the process that wrote it). */
export interface LogRecord {
  pid: number;
  msg: string;
  [field: string]: unknown;
}

/** The JSON log lines a service (a primary and its workers) has written so far. */
export function logRecords(output: string): LogRecord[] {
  const records: LogRecord[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      records.push(JSON.parse(line) as LogRecord);
    } catch {
      // a line still being written
    }
  }
  return records;
}

/** The worker pids of a WORKERS primary's latest "workers ready" / "worker restarted" line. */
export function workerPids(service: { output(): string }): number[] {
  const lines = logRecords(service.output()).filter(
    (record) => record.msg === 'workers ready' || record.msg === 'worker restarted',
  );
  return (lines.at(-1)?.workers as number[] | undefined) ?? [];
}

/** Whether `pids` hold every worker of the service's latest "workers ready" / "worker restarted". */
export function coversEveryWorker(service: { output(): string }, pids: Iterable<number>): boolean {
  const seen = new Set(pids);
  const workers = workerPids(service);
  return workers.length > 0 && workers.every((pid) => seen.has(pid));
}
