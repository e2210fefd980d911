import { messageOf } from '../errors/message-of';
import { systemErrorCode } from '../errors/system-error-code';
import type { Logger } from '../ports/logger';
import type { Runtime } from './create-runtime';

/** Whether the process takes new work; answered by readiness checks (REST /readyz). */
export interface Readiness {
  accepting: boolean;
  /**
   * A WORKERS worker whose primary has not yet said that every worker listens: not ready, so that
   * a load balancer's connections made during the start-up are not all kept by the first worker.
   */
  awaitingWorkers: boolean;
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
  /**
   * Bind each port with a socket of this process's own and SO_REUSEPORT: a WORKERS worker where
   * `workersReusePort` holds. Otherwise a worker shares its primary's socket.
   */
  readonly reusePort: boolean;
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
  /** The address it binds, and the setting that chose it when not HOST (named when binding fails). */
  readonly host: string;
  readonly hostSetting?: string;
  /** The port it binds (0: any free one), and the setting that chose it, named when binding fails. */
  readonly port: number;
  readonly portSetting: string;
  /** Binds and starts serving. */
  listen(): Promise<L>;
}

/** A port taken or not allowed: the port's setting is the one to change. */
const PORT_REFUSED = /\b(EADDRINUSE|EACCES)\b/;
/** An address this host does not have, or a name that does not resolve: its host setting is to change. */
const ADDRESS_REFUSED = /\b(EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN|EAI_NONAME)\b|Name resolution failed/;

/**
 * A gateway's bind failure as the operator needs it: which gateway, which address, which setting
 * to change (its port's, or its host's: HOST unless it names another), and the system's own words; the original error is the cause.
 * Any other failure is returned as it is, so no setting is blamed for what it did not cause.
 */
export function listenFailure(
  gateway: Pick<Gateway, 'name' | 'host' | 'hostSetting' | 'port' | 'portSetting'>,
  error: unknown,
): unknown {
  const reason = messageOf(error);
  const told = `${systemErrorCode(error) ?? ''} ${reason}`;
  const setting = PORT_REFUSED.test(told)
    ? gateway.portSetting
    : ADDRESS_REFUSED.test(told)
      ? (gateway.hostSetting ?? 'HOST')
      : undefined;
  if (!setting) return error;
  return new Error(
    `the ${gateway.name} gateway cannot listen on ${gateway.host}:${gateway.port} (set by ${setting}): ${reason}`,
    { cause: error },
  );
}

export type GatewayFactory<L extends Listening = Listening> = (
  context: GatewayContext,
) => Gateway<L>;
