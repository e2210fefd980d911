/** The subset of pino's logger the core uses; pass a pino logger or anything shaped like it. */
export interface LogFn {
  (object: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
