import { messageOf } from '../../errors/message-of';
import type { Logger } from '../../ports/logger';
import { mismatchAdvice } from './topology-errors';

export type LimiterMode = 'shared' | 'insurance';

/**
 * Tracks whether the Redis limiters count in Redis ('shared') or in each process's insurance
 * limiter ('insurance'), and logs each switch exactly once — never per request.
 *
 * Signals come from the connection (close / ready) and from the calls themselves (a result served
 * by the insurance limiter, or by Redis). Every call takes a ticket when it starts; a call only
 * moves the mode when it started after the last switch, so a slow answer to an older call cannot
 * flip the mode back and forth (and log again) around an outage.
 *
 * While falling back it also admits calls to Redis: one trial at a time, at most once per
 * `retryIntervalMs`. A Redis that hangs without closing the connection would otherwise make every
 * request wait for the command timeout. (With the connection closed, rate-limiter-flexible falls
 * back at once anyway, and the connection's 'ready' ends the fallback.)
 */
export class FallbackMonitor {
  private current: LimiterMode;
  private tickets = 0;
  private switchedAtTicket = 0;
  private silenced = false;
  private misconfigurationLogged = false;
  private trialInFlight = false;
  private nextTrialAt = 0;
  /** The answer that refused REDIS_URL's credentials or database, until a connection is accepted. */
  private refused: Error | undefined;
  private refusedThisConnection = false;

  constructor(
    private readonly logger: Logger,
    /** What the logs name the backend by (host and port, never credentials). */
    private readonly backend: string,
    initial: LimiterMode,
    private readonly retryIntervalMs = 1000,
  ) {
    this.current = initial;
  }

  /**
   * Where a call starting now goes: Redis, Redis as the one trial call, or the insurance. Only
   * calls whose answer tells who gave it may be trials (`canTry`).
   */
  admit(canTry: boolean, now = Date.now()): 'redis' | 'trial' | 'insurance' {
    if (this.current === 'shared') return 'redis';
    if (!canTry || this.trialInFlight || now < this.nextTrialAt) return 'insurance';
    this.trialInFlight = true;
    return 'trial';
  }

  /** The trial call admitted by admit() has its answer (from Redis or not). */
  trialDone(now = Date.now()): void {
    this.trialInFlight = false;
    this.nextTrialAt = now + this.retryIntervalMs;
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
    // Ready on other terms than REDIS_URL's (in database 0 after a refused SELECT): still refused.
    if (this.refusedThisConnection) return;
    this.refused = undefined;
    this.served(this.begin());
  }

  /** A new connection (or reconnection) has opened: its handshake has not been refused yet. */
  connectionOpened(): void {
    this.refusedThisConnection = false;
  }

  /**
   * Redis refused REDIS_URL's credentials or database during a connection's handshake: a
   * misconfiguration, logged once as such; calls fail (BACKEND_UNAVAILABLE) until a connection is
   * accepted.
   */
  connectionRefused(cause: unknown): void {
    this.refused = cause instanceof Error ? cause : new Error(messageOf(cause));
    this.refusedThisConnection = true;
    this.configurationError(cause);
  }

  /** The refusal calls fail with while REDIS_URL is refused; undefined otherwise. */
  get refusal(): Error | undefined {
    return this.refused;
  }

  /**
   * Redis answered in a way that means REDIS_URL does not match the deployment (MOVED, ASK,
   * READONLY). Logged as an error once per process; the calls fail (BACKEND_UNAVAILABLE) rather
   * than count per process, and the mode does not change.
   */
  configurationError(cause: unknown): void {
    if (this.misconfigurationLogged) return;
    this.misconfigurationLogged = true;
    this.logger.error(
      { redis: this.backend, reason: messageOf(cause), fix: mismatchAdvice(cause) },
      'Redis configuration error: rate-limited requests fail with code 23 until REDIS_URL is fixed',
    );
  }

  /** Closing on purpose: the connection's end is no outage worth a log line. */
  silence(): void {
    this.silenced = true;
  }

  private switchTo(mode: LimiterMode): void {
    this.current = mode;
    this.switchedAtTicket = this.tickets;
    if (mode === 'insurance') this.nextTrialAt = Date.now() + this.retryIntervalMs;
  }
}
