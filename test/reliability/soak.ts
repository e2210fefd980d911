/**
 * The reliability soak (`npm run soak`): the whole service in this process under a sustained mix
 * of well-behaved and hostile traffic over REST and gRPC, with slow and idle connections held
 * open the whole time. Prints a line every few seconds and a verdict; exits 1 on any violation.
 *
 *   SOAK_SECONDS      how long to run (default 60)
 *   SOAK_CONCURRENCY  concurrent clients (default 8)
 */
import { status } from '@grpc/grpc-js';
import type { Socket } from 'node:net';
import fc from 'fast-check';
import { ERROR_CODE_METADATA } from '../../gateway-grpc';
import { CreateShortLinkRequest } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { expectEnvelope } from '../support/envelope';
import { grpcClient, grpcCreate } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { settledHeapUsed } from '../support/heap';
import { hostileCreate, hostileString } from '../support/hostile-requests';
import { openSocket, pause, sendRaw } from '../support/raw-http';
import { startTestService, UNLIMITED } from '../support/in-process-service';

const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 8);
const IDLE_SOCKETS = 100;
const SLOW_SOCKETS = 10;

async function soak(): Promise<boolean> {
  const t = await startTestService({ ...UNLIMITED, LOG_LEVEL: 'silent' });
  const client = grpcClient(t.service.grpc.port);
  const metadata = authorizationMetadata(t.authorization);
  const hostile = fc.sample(hostileCreate({ ...t.demo }), 2_000);
  const hostileStrings = fc.sample(hostileString, 500);
  const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

  const counts = { requests: 0, successes: 0, follows: 0, violations: 0, reconnects: 0 };
  const violations: string[] = [];
  const violation = (what: string) => {
    counts.violations += 1;
    if (violations.length < 20) violations.push(what);
  };
  const created: string[] = [];
  const deadline = Date.now() + seconds * 1_000;
  let running = true;

  // Connections that misbehave for the whole run: idle ones, and ones trickling a header.
  const held = new Set<Socket>();
  const holdOpen = async (slow: boolean) => {
    while (running) {
      try {
        const socket = await openSocket(t.port);
        held.add(socket);
        socket.on('error', () => undefined);
        if (slow) socket.write('POST /api/create HTTP/1.1\r\nHost: x\r\n');
        while (running && !socket.destroyed) {
          if (slow) socket.write('X-Slow: 1\r\n');
          await pause(slow ? 500 : 1_000);
        }
        held.delete(socket);
        socket.destroy();
        counts.reconnects += 1;
      } catch {
        await pause(100);
      }
    }
  };
  const holders = [
    ...Array.from({ length: IDLE_SOCKETS }, () => holdOpen(false)),
    ...Array.from({ length: SLOW_SOCKETS }, () => holdOpen(true)),
  ];

  const actions: Array<() => Promise<void>> = [
    async () => {
      const answer = await sendRaw({
        port: t.port,
        headers: { 'Content-Type': 'application/json', Authorization: t.authorization },
        body: JSON.stringify(t.validBody({ url: `https://example.com/soak/${counts.requests}` })),
      });
      const envelope = expectEnvelope(answer);
      if (envelope.code !== 0) throw new Error(`valid create answered ${envelope.code}`);
      counts.successes += 1;
      created.push(String(envelope.data?.alias));
    },
    async () => {
      const request = pick(hostile);
      const answer = await sendRaw({ port: t.port, headers: request.headers, body: request.body });
      if (expectEnvelope(answer).code === 0) counts.successes += 1;
    },
    async () => {
      if (created.length === 0) return;
      const answer = await sendRaw({
        port: t.port,
        method: 'GET',
        path: `/${pick(created)}`,
        headers: { Host: t.demo.domain },
      });
      if (answer.status !== 301) throw new Error(`follow answered ${answer.status}`);
      counts.follows += 1;
    },
    async () => {
      const message = {
        organizationKey: t.demo.organizationKey,
        urlGroupId: t.demo.urlGroupId,
        url:
          Math.random() < 0.5 ? `https://example.com/g/${counts.requests}` : pick(hostileStrings),
        alias: Math.random() < 0.8 ? '' : pick(hostileStrings).slice(0, 100),
      };
      const outcome = await grpcCreate(client, message, metadata);
      const { code } = outcome.status;
      const bytes = CreateShortLinkRequest.encode(
        CreateShortLinkRequest.fromPartial(message),
      ).finish().length;
      if (code === status.OK) {
        counts.successes += 1;
      } else if (code === status.INTERNAL || code === status.UNKNOWN) {
        throw new Error(`gRPC ${code}: ${outcome.status.details}`);
      } else if (outcome.status.metadata.get(ERROR_CODE_METADATA).length === 0) {
        // The transport's own size limit is the one refusal without the contract's code.
        if (code !== status.RESOURCE_EXHAUSTED || bytes <= 64 * 1024) {
          throw new Error(`gRPC ${code} without ${ERROR_CODE_METADATA}`);
        }
      }
    },
  ];

  const worker = async () => {
    while (Date.now() < deadline) {
      counts.requests += 1;
      try {
        await pick(actions)();
      } catch (error) {
        violation(error instanceof Error ? error.message : String(error));
      }
    }
  };

  await pause(1_000);
  const baseline = await settledHeapUsed();
  const linksAtStart = t.store.links.size;
  const started = Date.now();
  const report = setInterval(() => {
    const elapsed = (Date.now() - started) / 1_000;
    const { heapUsed, rss } = process.memoryUsage();
    process.stdout.write(
      `${elapsed.toFixed(0)}s requests=${counts.requests} (${(counts.requests / elapsed).toFixed(0)}/s) ` +
        `successes=${counts.successes} violations=${counts.violations} held=${held.size} ` +
        `links=${t.store.links.size} heap=${(heapUsed / 2 ** 20).toFixed(1)}MiB rss=${(rss / 2 ** 20).toFixed(1)}MiB\n`,
    );
  }, 5_000);
  await Promise.all(Array.from({ length: concurrency }, worker));
  clearInterval(report);
  running = false;
  for (const socket of held) socket.destroy();
  await Promise.all(holders);

  const stored = t.store.links.size - linksAtStart;
  if (stored !== counts.successes)
    violation(`stored ${stored} links for ${counts.successes} successes`);
  const growth = (await settledHeapUsed()) - baseline;
  // The links stay, a few hundred bytes each; anything past that plus slack is a leak.
  const allowed = 16 * 2 ** 20 + stored * 2_048;
  if (growth > allowed) violation(`heap grew ${growth} bytes (allowed ${allowed})`);

  client.close();
  const stopping = t.service.shutdown();
  const stopped = await Promise.race([stopping.then(() => true), pause(30_000).then(() => false)]);
  if (!stopped) violation('shutdown did not finish within 30 s');

  process.stdout.write(
    `\n${counts.requests} requests, ${counts.successes} successes, ${counts.follows} follows, ` +
      `${counts.reconnects} slow or idle connections closed by the server, ${stored} links stored, ` +
      `heap ${growth >= 0 ? '+' : ''}${(growth / 2 ** 20).toFixed(1)} MiB\n`,
  );
  for (const what of violations) process.stdout.write(`VIOLATION: ${what}\n`);
  process.stdout.write(
    counts.violations === 0 ? 'soak passed\n' : `soak FAILED (${counts.violations})\n`,
  );
  return counts.violations === 0;
}

soak().then(
  (passed) => process.exit(passed ? 0 : 1),
  (error: unknown) => {
    process.stderr.write(`soak crashed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
