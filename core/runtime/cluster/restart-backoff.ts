export interface BackoffOptions {
  /** Delay before the first restart after a calm period (ms). */
  initialMs: number;
  /** Longest delay (ms). */
  maxMs: number;
  /** A worker that ran at least this long before exiting resets the delay (ms). */
  stableMs: number;
}

const RESTART_BACKOFF_DEFAULTS: BackoffOptions = {
  initialMs: 100,
  maxMs: 30_000,
  stableMs: 30_000,
};

/**
 * How long to wait before restarting a worker that exited: doubling with each exit in a row, so a
 * worker that crashes at once on every start does not spin the machine, and back to the initial
 * delay once a worker has stayed up for a while.
 */
export class RestartBackoff {
  private consecutive = 0;

  constructor(private readonly options: BackoffOptions = RESTART_BACKOFF_DEFAULTS) {}

  /** The delay before restarting a worker that ran for `uptimeMs`. */
  next(uptimeMs: number): number {
    if (uptimeMs >= this.options.stableMs) this.consecutive = 0;
    const delay = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.consecutive);
    this.consecutive += 1;
    return delay;
  }
}
