import type { Logger } from 'pino';
import type { GatewayFactory } from '../core/runtime';
import { createHttpApp } from './app';
import { expressMessageClasses } from './express-message-classes';
import type { HttpConfig } from './http-config';
import { listenHttp, type RunningHttpServer } from './http-server';

/**
 * The REST gateway as the composition root starts it: the express app on the context's core,
 * served with this gateway's settings. Takes the pino logger itself: request logging uses more of
 * pino than the core's logger port.
 */
export function restGateway(config: HttpConfig, logger: Logger): GatewayFactory<RunningHttpServer> {
  return (context) => ({
    name: 'REST',
    host: config.HOST,
    port: config.PORT,
    portSetting: 'PORT',
    listen: () => {
      const app = createHttpApp(context.runtime.core, {
        logger,
        redirectCacheMaxAge: config.REDIRECT_CACHE_MAX_AGE,
        trustProxy: config.TRUST_PROXY,
        readiness: context.readiness,
        metrics: context.runtime.metrics,
      });
      return listenHttp(app, {
        port: config.PORT,
        host: config.HOST,
        maxConnectionsPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
        drainTimeoutMs: context.drainTimeoutMs,
        messageClasses: expressMessageClasses(app),
        reusePort: context.reusePort,
      });
    },
  });
}
