import { ErrorCode } from '../../core';
import { Metadata, status } from '@grpc/grpc-js';
import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { connectGrpc, metadataText, type GrpcClientFixture } from '../support/grpc-fixture';
import { RedisProcess } from '../support/redis-process';
import { tempDirs } from '../support/temp-dirs';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { startChildService, type ChildService } from '../support/child-service';

/**
 * Two server processes as `npm start` runs them, on one DATA_DIR (LMDB, which several processes
 * may open at once) and one Redis for the rate limits: an idempotency key is claimed in the
 * shared store, so requests racing through both processes and both gateways run once.
 */
jest.setTimeout(120_000);

const dirs = tempDirs('idempotency-processes');
let build: TempBuild;
let redis: RedisProcess;
let dataDir: string;
const services: ChildService[] = [];
const clients: GrpcClientFixture[] = [];

beforeAll(async () => {
  build = await compileToTemp();
  redis = await RedisProcess.start();
  dataDir = join(await dirs.make(), 'data');
  const env = { DATA_DIR: dataDir, REDIS_URL: redis.url };
  // One after the other: the first provisions the demo into the empty store, the second finds it.
  services.push(await startChildService(build.dir, env));
  services.push(await startChildService(build.dir, env));
  for (const service of services) clients.push(connectGrpc(`127.0.0.1:${service.grpcPort}`));
});

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const service of services) {
    if (service.child.exitCode === null) service.child.kill('SIGTERM');
    await service.exited;
  }
  await redis?.stop();
  await build?.remove();
  await dirs.removeAll();
});

interface Answer {
  via: string;
  ok: boolean;
  code: number;
  id: number | undefined;
  replayed: boolean;
  remaining: number;
}

describe('one idempotency key across two processes sharing LMDB and Redis', () => {
  it('20 racing requests over REST and gRPC of both processes create exactly one link', async () => {
    const [first, second] = services as [ChildService, ChildService];
    const { token, organizationKey, urlGroupId } = first;
    const key = 'two-processes-1';
    const url = 'https://example.com/raced';

    const rest = async (service: ChildService): Promise<Answer> => {
      const answer = await fetch(`http://127.0.0.1:${service.httpPort}/api/create`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ organization_key: organizationKey, url_group_id: urlGroupId, url }),
      });
      const body = (await answer.json()) as { code: number; data: { id: number } | null };
      if (!answer.ok)
        expect([answer.status, answer.headers.get('retry-after')]).toEqual([409, '1']);
      return {
        via: `REST ${service.httpPort}`,
        ok: answer.ok,
        code: body.code,
        id: body.data?.id,
        replayed: answer.headers.get('idempotent-replayed') === 'true',
        remaining: Number(answer.headers.get('x-ratelimit-remaining')),
      };
    };
    const grpc = async (client: GrpcClientFixture): Promise<Answer> => {
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${token}`);
      metadata.set('idempotency-key', key);
      const outcome = await client.create({ organizationKey, urlGroupId, url }, metadata);
      const trailers = outcome.status.metadata;
      if (outcome.error) expect(outcome.error.code).toBe(status.ABORTED);
      return {
        via: `gRPC ${client.address}`,
        ok: outcome.error === undefined,
        code: outcome.error ? Number(metadataText(trailers, 'shortlink-error-code')) : 0,
        id: outcome.response?.shortLink?.id,
        replayed: metadataText(trailers, 'idempotent-replayed') === 'true',
        remaining: Number(metadataText(trailers, 'x-ratelimit-remaining')),
      };
    };
    const senders = [
      () => rest(first),
      () => rest(second),
      () => grpc(clients[0]!),
      () => grpc(clients[1]!),
    ];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => senders[i % senders.length]!()),
    );

    const created = answers.filter((a) => a.ok);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.id)).size).toBe(1);
    expect(created.filter((a) => !a.replayed)).toHaveLength(1);
    for (const refused of answers.filter((a) => !a.ok))
      expect(refused.code).toBe(ErrorCode.IDEMPOTENCY_KEY_IN_USE);
    // One Redis budget for both processes: every request took its own unit of it.
    expect(new Set(answers.map((a) => a.remaining)).size).toBe(answers.length);

    // Once done, both processes and both gateways replay the same link.
    const later = await Promise.all(senders.map((send) => send()));
    for (const answer of later) {
      expect([answer.via, answer.ok, answer.id, answer.replayed]).toEqual([
        answer.via,
        true,
        created[0]!.id,
        true,
      ]);
    }

    // And the shared store holds that one link and one record.
    for (const service of services) service.child.kill('SIGTERM');
    await Promise.all(services.map((service) => service.exited));
    const store = await createLmdbStore({ dataDir });
    try {
      expect(store.links.count()).toBe(1);
      expect(store.idempotency.count()).toBe(1);
    } finally {
      await store.close();
    }
  });
});
