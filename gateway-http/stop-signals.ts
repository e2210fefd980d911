import closeWithGrace from 'close-with-grace';
import type { Logger } from 'pino';
import { STOP_SIGNALS } from '../core/runtime';
import type { Service } from './service';

/** The last line a process logs when it stopped gracefully (one process, a worker, a primary). */
export const STOPPED_MESSAGE = 'stopped';

/**
 * Stops the service on SIGTERM, SIGINT or SIGHUP (and on a crash), within SHUTDOWN_TIMEOUT_MS.
 * The stop signals are heard by heedStopSignals; close-with-grace handles a crash and the deadline.
 */
export function stopOnSignals(
  shutdownTimeoutMs: number,
  logger: Logger,
  service: Service,
  /** Where the stop signals heard since the process started are answered. */
  onStop: (stop: () => void) => void,
): void {
  const grace = closeWithGrace(
    { delay: shutdownTimeoutMs, logger, skip: [...STOP_SIGNALS] },
    async ({ err }) => {
      if (err) logger.error({ err }, 'shutting down after an error');
      await service.shutdown();
      // The last line of a stop, so a person reading the log knows it ended cleanly (pino writes
      // what is queued when the process exits).
      logger.info(STOPPED_MESSAGE);
    },
  );
  onStop(() => void grace.close());
}

/**
 * The stop signals of a serving process (one process, or a worker). A worker hears them from its
 * first moment: one that comes while it is still starting (a replacement of a crashed worker, when
 * the primary is stopped) is held until the service runs, which then stops at once; unheard, it
 * ended the worker mid-start. Repeated signals are the same stop: a terminal's Ctrl-C reaches the
 * process from the terminal and again from npm, which forwards it (the server runs in place of
 * npm's shell), and a worker's from its primary too. close-with-grace would take the second one
 * as "exit now" and cut the drain short; the drain is bounded by SHUTDOWN_TIMEOUT_MS anyway.
 */
export function heedStopSignals(logger: Logger): (stop: () => void) => void {
  let heard = false;
  let stopNow: (() => void) | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (heard) return;
      heard = true;
      logger.info({ signal }, 'shutting down');
      stopNow?.();
    });
  }
  return (stop) => {
    stopNow = stop;
    if (heard) stop();
  };
}
