import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { openEnvironment } from '../../../core/adapters/lmdb/lmdb-store';
import { alternating } from '../support/alternating';
import { failChild, tellParent } from '../support/child';
import { CONCURRENCY } from '../support/concurrency';
import { inFlight, medianRate, type Rate } from '../support/in-flight';
import { rawLinkWriter } from '../support/raw-link-write';

export interface SharedWritesResult {
  /** CONCURRENCY writes in flight in one process. */
  one: Rate;
  /** The same number in flight in all, split over two processes on one environment. */
  two: Rate;
}

type WriterMessage = { type: 'ready' } | { type: 'done'; rate: Rate };

/**
 * One writer process: the product's environment in `dir`, `concurrency` link writes in flight
 * (rawLinkWriter), each waiting for its fsync as a create does (Store.flush), for the seconds
 * each `run` message asks; answers its calls and CPU (every thread of the process).
 */
function writer(dir: string, concurrency: number): void {
  const root = openEnvironment(dir);
  const write = rawLinkWriter(root)(false);
  const call = async () => {
    await write();
    await root.flushed;
  };
  process.on('message', (message: { type: string; seconds?: number }) => {
    if (message.type === 'stop') {
      void root.close().finally(() => process.exit(0));
      return;
    }
    void inFlight(message.seconds ?? 1, call, concurrency).then((rate) =>
      process.send?.({ type: 'done', rate } satisfies WriterMessage),
    );
  });
  process.send?.({ type: 'ready' } satisfies WriterMessage);
}

function next(child: ChildProcess): Promise<WriterMessage> {
  return new Promise((resolve) => child.once('message', (m: WriterMessage) => resolve(m)));
}

/** `count` writer processes sharing the environment in `dir`, CONCURRENCY writes in all. */
async function writers(dir: string, count: number) {
  const children = Array.from({ length: count }, () =>
    fork(__filename, ['writer', dir, String(CONCURRENCY / count)], { stdio: 'inherit' }),
  );
  await Promise.all(children.map(next));
  return {
    /** One round of every writer at once: the calls per second and CPU per call of them all. */
    run: async (seconds: number): Promise<Rate> => {
      const answers = children.map(next);
      for (const child of children) child.send({ type: 'run', seconds });
      const rates = (await Promise.all(answers)).flatMap((m) =>
        m.type === 'done' ? [m.rate] : [],
      );
      // The writers ran for the same seconds: their rates add up, and their CPU per call
      // averages weighted by their rates.
      const callsPerSecond = rates.reduce((sum, r) => sum + r.callsPerSecond, 0);
      const cpuPerSecond = rates.reduce((sum, r) => sum + r.cpuMicrosPerCall * r.callsPerSecond, 0);
      return { callsPerSecond, cpuMicrosPerCall: cpuPerSecond / callsPerSecond };
    },
    stop: () =>
      Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.send({ type: 'stop' });
            }),
        ),
      ),
  };
}

/**
 * What a second process on one LMDB environment costs lmdb-js itself, with no shortlink code and
 * no transport: CONCURRENCY link writes in flight (each waiting for its fsync) in one process,
 * against the same number split over two processes sharing one environment, as WORKERS=2
 * splits the requests. Each side in an environment of its own; a warm-up each, then `rounds`
 * alternating rounds; medians.
 */
async function main(): Promise<void> {
  const [mode = '', dir = '', third = '3', warmupText = '5', roundsText = '5'] =
    process.argv.slice(2);
  if (mode === 'writer') {
    writer(dir, Number(third));
    return;
  }
  const seconds = Number(third);
  const one = await writers(join(dir, 'one'), 1);
  const two = await writers(join(dir, 'two'), 2);
  try {
    await one.run(Number(warmupText));
    await two.run(Number(warmupText));
    const rounds = await alternating(
      Number(roundsText),
      () => one.run(seconds),
      () => two.run(seconds),
    );
    const result: SharedWritesResult = { one: medianRate(rounds.a), two: medianRate(rounds.b) };
    await tellParent({ type: 'result', ...result });
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
}

main().catch(failChild);
