import type { Logger } from '../../ports/logger';

export type LimiterMode = 'shared' | 'insurance';

/**
 * Tracks whether the Redis limiters count in Redis ('shared') or in each process's insurance
 * limiter ('insurance'), and logs each switch exactly once — never per request.
 *
 * Signals come from the connection (close / ready) and from the calls themselves (a result served
 * by the insurance limiter, or by Redis). Every call takes a ticket when it starts; a call only
 * moves the mode when it started after the last switch, so a slow answer to an older call cannot
 * flip the mode back and forth (and log again) around an outage.
 */
export class FallbackMonitor {
  private current: LimiterMode;
  private tickets = 0;
  private switchedAtTicket = 0;
  private silenced = false;

  constructor(
    private readonly logger: Logger,
    /** What the logs name the backend by (host and port, never credentials). */
    private readonly backend: string,
    initial: LimiterMode,
  ) {
    this.current = initial;
  }

  get mode(): LimiterMode {
    return this.current;
  }

  /** A ticket for a call that starts now. */
  begin(): number {
    this.tickets += 1;
    return this.tickets;
  }

  /** The insurance limiter answered the call with `ticket`, or the connection dropped. */
  fellBack(ticket: number, cause?: unknown): void {
    if (this.current === 'insurance' || ticket <= this.switchedAtTicket) return;
    this.switchTo('insurance');
    if (this.silenced) return;
    this.logger.warn(
      { redis: this.backend, err: cause },
      'Redis unreachable: rate limits are counted per process by the in-memory insurance limiter until it returns',
    );
  }

  /** Redis answered the call with `ticket`, or the connection became ready. */
  served(ticket: number): void {
    if (this.current === 'shared' || ticket <= this.switchedAtTicket) return;
    this.switchTo('shared');
    if (this.silenced) return;
    this.logger.info(
      { redis: this.backend },
      'Redis reachable again: rate limits are shared again',
    );
  }

  /** The connection's own view: applies to every call that starts from now on. */
  connectionLost(cause?: unknown): void {
    this.fellBack(this.begin(), cause);
  }

  connectionReady(): void {
    this.served(this.begin());
  }

  /** Closing on purpose: the connection's end is no outage worth a log line. */
  silence(): void {
    this.silenced = true;
  }

  private switchTo(mode: LimiterMode): void {
    this.current = mode;
    this.switchedAtTicket = this.tickets;
  }
}
