import type { Logger } from '../ports/logger';
import type { Runtime } from './create-runtime';

/** Whether the process takes new work; answered by readiness checks (REST /readyz). */
export interface Readiness {
  accepting: boolean;
}

/** What the composition root hands every gateway it starts. */
export interface GatewayContext {
  readonly runtime: Runtime;
  readonly logger: Logger;
  readonly readiness: Readiness;
  /**
   * How long close() may wait for in-flight requests before cutting them: the same for every
   * gateway (they close together), see `drainTimeoutMs`.
   */
  readonly drainTimeoutMs: number;
}

/** A gateway that is serving: its bound port (useful with port 0) and how to stop it. */
export interface Listening {
  readonly port: number;
  /** Stops taking new work, lets in-flight requests finish (bounded by the drain time), stops. */
  close(): Promise<void>;
}

/**
 * A transport serving the core: the composition root's one view of REST and gRPC alike. Built
 * from a GatewayContext by the gateway's own factory, which holds its transport settings.
 */
export interface Gateway<L extends Listening = Listening> {
  /** Shown in the start-up log line ("REST gateway listening"). */
  readonly name: string;
  /** The address it binds. */
  readonly host: string;
  /** Binds and starts serving. */
  listen(): Promise<L>;
}

export type GatewayFactory<L extends Listening = Listening> = (
  context: GatewayContext,
) => Gateway<L>;
