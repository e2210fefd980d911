import { connect } from 'node:net';
import { silentLogger } from '../../core';
import { createRuntime, loadConfig, serveGateways, type GatewayContext } from '../../core/runtime';
import { startService as startWithSettings } from '../../gateway-http/service';
import { loadServiceSettings } from '../../gateway-http/service-settings';
import { captureLogs } from '../support/log-capture';

/** The service with the settings `env` gives. */
const startService = (
  env: NodeJS.ProcessEnv,
  ...rest: Parameters<typeof startWithSettings> extends [unknown, ...infer R] ? R : never
) => startWithSettings(loadServiceSettings(env), ...rest);

/** Resolves with the error code of a connection attempt to 127.0.0.1:`port` ('connected' if any). */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('the composition root when start-up fails after the gateways listen', () => {
  it('closes both gateways and the runtime, and rejects with the failure', async () => {
    const logs = captureLogs();
    let runtimeClosed = false;
    const demoFailure = new Error('the store refused the demo organization');
    const started = startService(
      { PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', DATA_DIR: ':memory:' },
      logs.logger,
      {
        createRuntime: async (config, logger, options) => {
          const runtime = await createRuntime(config, logger, options);
          return {
            ...runtime,
            provisionDemo: () => Promise.reject(demoFailure),
            close: async () => {
              runtimeClosed = true;
              await runtime.close();
            },
          };
        },
      },
    );
    await expect(started).rejects.toBe(demoFailure);

    const ports = logs
      .records()
      .filter((record) => String(record.msg).endsWith('gateway listening'))
      .map((record) => record.port as number);
    expect(ports).toHaveLength(2); // both were listening before the demo failed
    for (const port of ports) expect(await connectOutcome(port)).toBe('ECONNREFUSED');
    expect(runtimeClosed).toBe(true);
  });

  it('closes the first gateway when the second cannot bind, and names the setting', async () => {
    const logs = captureLogs();
    const first = await startService(
      { PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', DATA_DIR: ':memory:' },
      logs.logger,
    );
    const stderr = jest.spyOn(console, 'error');
    try {
      const second = captureLogs();
      // The gRPC port is taken by the first service.
      const port = first.grpc.port;
      await expect(
        startService(
          { PORT: '0', GRPC_PORT: String(port), METRICS_PORT: '0', DATA_DIR: ':memory:' },
          second.logger,
        ),
      ).rejects.toThrow(
        new RegExp(
          `^the gRPC gateway cannot listen on 127\\.0\\.0\\.1:${port} \\(set by GRPC_PORT\\): .*EADDRINUSE`,
        ),
      );
      const restPort = second.records().find((record) => record.msg === 'REST gateway listening')
        ?.port as number;
      expect(restPort).toBeGreaterThan(0);
      expect(await connectOutcome(restPort)).toBe('ECONNREFUSED');
      // Nothing about it is written as plain text on stderr (the gateway binds its own socket
      // server, so grpc-js has nothing to say; its lines are the log's, see grpc-js-logs.test.ts).
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      await first.shutdown();
    }
  });

  it('names PORT when the REST gateway cannot bind', async () => {
    const logs = captureLogs();
    const first = await startService(
      { PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', DATA_DIR: ':memory:' },
      logs.logger,
    );
    try {
      const port = first.http.port;
      await expect(
        startService(
          { PORT: String(port), GRPC_PORT: '0', METRICS_PORT: '0', DATA_DIR: ':memory:' },
          captureLogs().logger,
        ),
      ).rejects.toThrow(
        `the REST gateway cannot listen on 127.0.0.1:${port} (set by PORT): listen EADDRINUSE`,
      );
    } finally {
      await first.shutdown();
    }
  });
});

describe('a gateway that cannot start', () => {
  it('names HOST when the address does not resolve', async () => {
    await expect(
      startService(
        {
          HOST: 'nohost.invalid',
          PORT: '0',
          GRPC_PORT: '0',
          METRICS_PORT: '0',
          DATA_DIR: ':memory:',
        },
        captureLogs().logger,
      ),
    ).rejects.toThrow(
      // A resolver that cannot be reached answers EAI_AGAIN instead.
      /^the REST gateway cannot listen on nohost\.invalid:0 \(set by HOST\): .*(ENOTFOUND|EAI_AGAIN)/,
    );
  });

  it('fails with its own error, naming no setting, when that is not a bind failure', async () => {
    const failure = new Error('the reflection service could not be built');
    const started = serveGateways(
      loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: ':memory:' }),
      silentLogger,
      {
        gateways: {
          a: () => ({
            name: 'A',
            host: '127.0.0.1',
            port: 0,
            portSetting: 'A_PORT',
            listen: () => Promise.reject(failure),
          }),
        },
        linkGateway: 'a',
        mayProvisionDemo: false,
      },
    );
    await expect(started).rejects.toBe(failure);
  });
});

describe('the drain time of the gateways', () => {
  it('is the same share of SHUTDOWN_TIMEOUT_MS for every gateway, below the whole', async () => {
    const given: Record<string, number> = {};
    const fake = (name: string) => (context: GatewayContext) => ({
      name,
      host: '127.0.0.1',
      port: 0,
      portSetting: 'TEST_PORT',
      listen: () => {
        given[name] = context.drainTimeoutMs;
        return Promise.resolve({ port: 1, close: () => Promise.resolve() });
      },
    });
    const service = await serveGateways(
      loadConfig({ SHUTDOWN_TIMEOUT_MS: '10000', LOG_LEVEL: 'silent', DATA_DIR: ':memory:' }),
      silentLogger,
      { gateways: { a: fake('A'), b: fake('B') }, linkGateway: 'a', mayProvisionDemo: false },
    );
    await service.shutdown();
    expect(given).toEqual({ A: 8000, B: 8000 });
  });
});
