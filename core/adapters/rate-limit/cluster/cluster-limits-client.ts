import { BackendUnavailableError } from '../../../errors/shortlink-error';
import type { RateLimitDecision } from '../../../ports/rate-limiter';
import {
  CLUSTER_LIMITS_CHANNEL,
  isLimitBatchAnswer,
  type LimitAnswer,
  type LimitBatch,
  type LimitCall,
} from './cluster-limits-protocol';

/** A worker's line to its primary: node's IPC channel (`process`), or a test's stand-in. */
export interface LimitsChannel {
  send(message: LimitBatch, callback: (error: Error | null) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

interface PendingCall {
  call: LimitCall;
  resolve(decision: RateLimitDecision | null): void;
  reject(error: Error): void;
}

interface SentBatch {
  calls: PendingCall[];
  timer: NodeJS.Timeout;
}

/** How long a worker waits for its primary's answer before the call fails as an outage. */
const CLUSTER_LIMITS_TIMEOUT_MS = 5000;

/**
 * A worker's side of the primary-held counters: every limiter call made in one event-loop turn
 * goes to the primary as one message and comes back as one answer. Under load a turn carries
 * several requests, so the IPC (a write, a wake-up of the primary, a parse, the answer back)
 * is paid once per turn rather than once per request; with two workers, a message per call
 * measured about a fifth of a create's CPU over all processes. A primary that does not answer
 * within `timeoutMs`, or a channel that cannot be written, fails the calls as a backend outage
 * (BACKEND_UNAVAILABLE), never as an unlimited pass.
 */
export class ClusterLimitsClient {
  private queued: PendingCall[] = [];
  private nextBatch = 1;
  private readonly sent = new Map<number, SentBatch>();

  constructor(
    private readonly channel: LimitsChannel,
    private readonly timeoutMs = CLUSTER_LIMITS_TIMEOUT_MS,
  ) {
    channel.on('message', (message) => {
      if (isLimitBatchAnswer(message)) this.settle(message.batch, message.answers);
    });
  }

  call(call: LimitCall): Promise<RateLimitDecision | null> {
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.flush());
      this.queued.push({ call, resolve, reject });
    });
  }

  private flush(): void {
    const calls = this.queued;
    this.queued = [];
    const batch = this.nextBatch++;
    const timer = setTimeout(
      () => this.fail(batch, new Error(`no answer from the primary in ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    timer.unref();
    this.sent.set(batch, { calls, timer });
    const message: LimitBatch = {
      channel: CLUSTER_LIMITS_CHANNEL,
      batch,
      calls: calls.map((pending) => pending.call),
    };
    try {
      this.channel.send(message, (error) => {
        if (error) this.fail(batch, error);
      });
    } catch (error) {
      this.fail(batch, error instanceof Error ? error : new Error(String(error)));
    }
  }

  private take(batch: number): PendingCall[] {
    const sent = this.sent.get(batch);
    if (!sent) return [];
    clearTimeout(sent.timer);
    this.sent.delete(batch);
    return sent.calls;
  }

  private settle(batch: number, answers: readonly LimitAnswer[]): void {
    this.take(batch).forEach((pending, index) => {
      const answer: unknown = answers[index];
      if (typeof answer !== 'object' || answer === null) {
        pending.reject(unavailable('the primary gave no answer for this call'));
      } else if ('error' in answer && answer.error !== undefined) {
        pending.reject(
          unavailable(typeof answer.error === 'string' ? answer.error : 'the primary failed'),
        );
      } else {
        pending.resolve((answer as { decision?: RateLimitDecision | null }).decision ?? null);
      }
    });
  }

  private fail(batch: number, cause: Error): void {
    for (const pending of this.take(batch)) pending.reject(unavailable(cause.message, cause));
  }
}

function unavailable(reason: string, cause?: Error): BackendUnavailableError {
  return new BackendUnavailableError(`cluster rate limits unavailable: ${reason}`, { cause });
}

let processClient: ClusterLimitsClient | undefined;

/** This worker's one client on `process` (its IPC channel to the primary), shared by its limiters. */
export function processLimitsClient(): ClusterLimitsClient {
  if (!processClient) {
    if (!process.send) {
      throw new Error('cluster rate limits need an IPC channel (a cluster worker)');
    }
    processClient = new ClusterLimitsClient({
      send: (message, callback) => process.send?.(message, callback),
      on: (event, listener) => process.on(event, listener),
    });
  }
  return processClient;
}
