import type { GrpcConnectionLimits } from './connection-limits';

/**
 * How often a client without a call may ping when that is not permitted: once per two hours, as
 * grpc-go and gRPC core count it (their keepalive default for a connection with nothing to do).
 */
export const PING_WITHOUT_CALLS_INTERVAL_MS = 2 * 60 * 60 * 1000;

/**
 * gRPC's keepalive enforcement for one connection (grpc-go's and gRPC core's rule): a ping
 * sooner than `keepaliveMinTimeMs` after the previous one while calls are open, or any ping but
 * the first without a call (unless permitted), is a strike; more than `maxPingStrikes` strikes and
 * the connection must go. A call starting clears the count, since the server then sends headers
 * and data, after which a client's ping is expected.
 */
export class PingPolicy {
  private strikes = 0;
  private lastPingAt: number | undefined;
  private openCalls = 0;

  constructor(
    private readonly limits: Pick<
      GrpcConnectionLimits,
      'keepaliveMinTimeMs' | 'keepalivePermitWithoutCalls' | 'maxPingStrikes'
    >,
    private readonly now: () => number = Date.now,
  ) {}

  callStarted(): void {
    this.openCalls += 1;
    this.strikes = 0;
    this.lastPingAt = undefined;
  }

  callEnded(): void {
    this.openCalls = Math.max(0, this.openCalls - 1);
  }

  /** A ping arrived: answers true when it is one strike too many (close the connection). */
  pinged(): boolean {
    const now = this.now();
    const interval =
      this.openCalls > 0 || this.limits.keepalivePermitWithoutCalls
        ? this.limits.keepaliveMinTimeMs
        : PING_WITHOUT_CALLS_INTERVAL_MS;
    if (this.lastPingAt !== undefined && now - this.lastPingAt < interval) this.strikes += 1;
    this.lastPingAt = now;
    return this.strikes > this.limits.maxPingStrikes;
  }
}
