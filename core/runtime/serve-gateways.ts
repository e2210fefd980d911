import type { Logger } from '../ports/logger';
import type { DemoCredentials } from '../provisioning/demo';
import type { Config } from './config';
import { createRuntime, type Runtime, type RuntimeOptions } from './create-runtime';
import { listenFailure, type GatewayFactory, type Listening, type Readiness } from './gateway';

/**
 * The share of SHUTDOWN_TIMEOUT_MS every gateway may spend draining in-flight requests. The
 * gateways close together, so one share fits all; the rest of the deadline is left for releasing
 * the backends (store, limiters) before the process's own deadline ends it.
 */
export const DRAIN_SHARE = 0.8;

export function drainTimeoutMs(shutdownTimeoutMs: number): number {
  return Math.floor(shutdownTimeoutMs * DRAIN_SHARE);
}

/** What a service serves, by name; an optional one (metrics) may be left out. */
export type Listenings = Record<string, Listening | undefined>;

export interface ServiceOptions<G extends Listenings> {
  /** The gateways to serve, started in this order; an absent optional one is not started. */
  gateways: { [N in keyof G]: GatewayFactory<NonNullable<G[N]>> };
  /** The gateway whose port is the demo's link domain (`localhost:<port>`). */
  linkGateway: keyof G;
  /**
   * Whether this process may provision the demo when the runtime wants one. With WORKERS only the
   * first worker does, so it happens once.
   */
  mayProvisionDemo?: boolean;
  runtimeOptions?: RuntimeOptions;
  /** Bind the ports with SO_REUSEPORT, as a WORKERS worker where `workersReusePort` holds. */
  reusePort?: boolean;
  /** A WORKERS worker: not ready until its primary says every worker listens (Readiness). */
  awaitingWorkers?: boolean;
  /** Builds the runtime (createRuntime; tests wrap it to inject failures). */
  createRuntime?: typeof createRuntime;
}

export type RunningService<G extends Listenings> = G & {
  runtime: Runtime;
  /** What the readiness checks answer; a WORKERS worker clears awaitingWorkers when told. */
  readiness: Readiness;
  /** The demo credentials, when this process provisioned the demo organization. */
  demo: DemoCredentials | undefined;
  /** Stops taking new work, lets in-flight requests finish, then releases the backends. */
  shutdown(): Promise<void>;
};

/**
 * Builds the runtime from `config`, starts each gateway on its core through the one small
 * interface they have (`listen`, `close`), and is the one place that stops them. All gateways
 * share one core, so one token's rate limit is counted across them. Anything failing during
 * start-up (a port taken, the demo) closes what was started before it and rejects: no
 * half-started service keeps listening. The composition root (gateway-http/service.ts) names the
 * gateways.
 */
export async function serveGateways<G extends Listenings>(
  config: Config,
  logger: Logger,
  options: ServiceOptions<G>,
): Promise<RunningService<G>> {
  const runtime = await (options.createRuntime ?? createRuntime)(
    config,
    logger,
    options.runtimeOptions,
  );
  const readiness: Readiness = {
    accepting: true,
    awaitingWorkers: options.awaitingWorkers ?? false,
  };
  const context = {
    runtime,
    logger,
    readiness,
    drainTimeoutMs: drainTimeoutMs(config.SHUTDOWN_TIMEOUT_MS),
    reusePort: options.reusePort ?? false,
  };
  const listening: Listening[] = [];
  const closeAll = async () => {
    readiness.accepting = false;
    await Promise.all(listening.map((gateway) => gateway.close()));
    await runtime.close();
  };
  try {
    const gateways = {} as G;
    for (const name of Object.keys(options.gateways) as Array<keyof G & string>) {
      const factory = options.gateways[name] as GatewayFactory | undefined;
      if (!factory) continue;
      const gateway = factory(context);
      const running = await gateway.listen().catch((error: unknown) => {
        throw listenFailure(gateway, error);
      });
      listening.push(running);
      gateways[name] = running as G[typeof name];
      logger.info(
        { port: running.port, host: gateway.host, store: runtime.core.deps.store.kind },
        `${gateway.name} gateway listening`,
      );
    }
    // The demo's link domain is this server itself, so it is made once the port is known.
    const demo =
      runtime.wantsDemo && (options.mayProvisionDemo ?? true)
        ? await runtime.provisionDemo((gateways[options.linkGateway] as Listening).port)
        : undefined;
    let stopping: Promise<void> | undefined;
    const shutdown = () => (stopping ??= closeAll());
    return Object.assign(gateways, { runtime, readiness, demo, shutdown });
  } catch (error) {
    await closeAll().catch((closeError: unknown) =>
      logger.error({ err: closeError }, 'closing after a failed start-up failed'),
    );
    throw error;
  }
}
