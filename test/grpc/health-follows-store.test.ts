import { credentials } from '@grpc/grpc-js';
import pino from 'pino';
import { createCore, createMemoryStore } from '../../core';
import { listenGrpc, SHORTLINK_SERVICE_NAME, type RunningGrpcServer } from '../../gateway-grpc';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthClient,
} from '../../gateway-grpc/generated/grpc/health/v1/health';

/** A memory store whose ping fails while `down` is set, as an unreachable MongoDB's would. */
function switchableStore() {
  const state = { down: false, pings: 0 };
  const store = {
    ...createMemoryStore(),
    ping: () => {
      state.pings += 1;
      return state.down ? Promise.reject(new Error('store unreachable')) : Promise.resolve();
    },
  };
  return { store, state };
}

function status(client: HealthClient, service: string): Promise<ServingStatus> {
  return new Promise((resolve, reject) =>
    client.check({ service }, (error, response) =>
      error ? reject(error) : resolve(response.status),
    ),
  );
}

/** Polls until every entry reports `expected`, or fails after `timeoutMs`. */
async function until(client: HealthClient, expected: ServingStatus, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await Promise.all(['', SHORTLINK_SERVICE_NAME].map((s) => status(client, s)));
    if (seen.every((s) => s === expected)) return;
    if (Date.now() > deadline) throw new Error(`health stayed ${seen.join(',')}, not ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('gRPC health follows the store', () => {
  let running: RunningGrpcServer | undefined;
  let client: HealthClient | undefined;
  afterEach(async () => {
    client?.close();
    await running?.close();
    running = undefined;
  });

  async function start(store: ReturnType<typeof switchableStore>['store']) {
    const logger = pino({ level: 'silent' });
    running = await listenGrpc(createCore({ store }), {
      port: 0,
      host: '127.0.0.1',
      logger,
      healthCheckIntervalMs: 50,
    });
    client = new HealthClient(`127.0.0.1:${running.port}`, credentials.createInsecure());
    return client;
  }

  it('turns NOT_SERVING when the store stops answering and SERVING when it is back', async () => {
    const { store, state } = switchableStore();
    const health = await start(store);
    expect(await status(health, '')).toBe(ServingStatus.SERVING);

    state.down = true;
    await until(health, ServingStatus.NOT_SERVING);
    state.down = false;
    await until(health, ServingStatus.SERVING);
  });

  it('starts NOT_SERVING without a store and turns SERVING once it answers', async () => {
    const { store, state } = switchableStore();
    state.down = true;
    const health = await start(store);
    expect(await status(health, SHORTLINK_SERVICE_NAME)).toBe(ServingStatus.NOT_SERVING);

    state.down = false;
    await until(health, ServingStatus.SERVING);
  });

  it('stops asking the store once closed, and says NOT_SERVING while it drains', async () => {
    const { store, state } = switchableStore();
    const health = await start(store);
    const server = running as RunningGrpcServer;
    const closed = server.close();
    expect(await status(health, '').catch(() => ServingStatus.NOT_SERVING)).toBe(
      ServingStatus.NOT_SERVING,
    );
    await closed;
    const pings = state.pings;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(pings);
  });
});
