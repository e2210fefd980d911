import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore, FORMAT_VERSION } from '../../core/adapters/lmdb';
import { NEW_CREDENTIALS_HINT, NO_DEMO_MESSAGE } from '../../core/runtime/create-runtime';
import { adminSucceeds, shownOnce } from '../support/admin-cli';
import { logRecords } from '../support/service-log';
import { freePort } from '../support/free-port';
import {
  fillUp,
  mountSupport,
  mountTmpfs,
  type SmallFilesystem,
} from '../support/small-filesystem';
import { formatVersionIn } from '../support/raw-lmdb';
import { tempDirs } from '../support/temp-dirs';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import {
  runServiceUntilExit,
  startChildService,
  type ChildService,
} from '../support/child-service';
import { pause, sendRaw } from '../support/raw-http';
import { UNLIMITED } from '../support/in-process-service';

jest.setTimeout(120_000);

const dirs = tempDirs('lmdb-processes');
const mounts: SmallFilesystem[] = [];
const children: ChildService[] = [];
let build: TempBuild;

beforeAll(async () => {
  build = await compileToTemp();
  await writeFile(join(build.dir, 'race-child.js'), RACE_CHILD);
});

afterAll(async () => {
  for (const service of children.splice(0)) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
  for (const mount of mounts.splice(0)) mount.unmount();
  await build?.remove();
  await dirs.removeAll();
});

/**
 * A process that opens the store in DATA_DIR, says "ready", and on a line from its parent races
 * for ROUNDS aliases (race-0, race-1, ...), inserting each. It prints what it got (the id of each
 * link it stored, or null for an alias another process had taken) as one JSON line.
 */
const RACE_CHILD = `
const { createLmdbStore } = require('./core/adapters/lmdb');
(async () => {
  const store = await createLmdbStore({ dataDir: process.env.DATA_DIR });
  process.stdout.write('ready\\n');
  process.stdin.once('data', async () => {
    const results = [];
    for (let i = 0; i < Number(process.env.ROUNDS); i += 1) {
      const url = 'https://example.com/' + process.pid + '/' + i;
      const outcome = await store.links.insert({
        domain: 'acme.link', alias: 'race-' + i, url, redirectType: 301, scheme: 'https',
        organizationId: 'acme', groupApiId: '1', userId: 'alice', createdAt: new Date(),
      });
      results.push({ id: outcome === 'alias_taken' ? null : outcome.id, url });
    }
    process.stdout.write(JSON.stringify(results) + '\\n');
    await store.close();
  });
})().catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });
`;

interface RaceResult {
  /** The stored link's id; null when another process had the alias. */
  id: number | null;
  url: string;
}

function startRacer(dataDir: string, rounds: number) {
  const child = spawn(process.execPath, [join(build.dir, 'race-child.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_PATH: join(ROOT, 'node_modules'),
      DATA_DIR: dataDir,
      ROUNDS: String(rounds),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`racer exited early: ${errors}`)));
  });
  const results = new Promise<RaceResult[]>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = output.split('\n')[1] ?? '';
      if (code === 0 && line) resolve(JSON.parse(line) as RaceResult[]);
      else reject(new Error(`racer exited with ${code}: ${errors}`));
    });
  });
  results.catch(() => undefined);
  return { ready, results, go: () => child.stdin.end('go\n') };
}

function createBody(service: ChildService, alias?: string, url = 'https://example.com/landing') {
  return JSON.stringify({
    organization_key: service.organizationKey,
    url_group_id: service.urlGroupId,
    url,
    ...(alias === undefined ? {} : { alias }),
  });
}

function create(port: number, token: string, body: string) {
  return sendRaw({
    port,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body,
  });
}

describe('LMDB: several processes on one DATA_DIR', () => {
  it('lets exactly one process win each alias, with distinct increasing ids', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const rounds = 40;
    const racers = Array.from({ length: 3 }, () => startRacer(dataDir, rounds));
    await Promise.all(racers.map((racer) => racer.ready));
    for (const racer of racers) racer.go();
    const results = await Promise.all(racers.map((racer) => racer.results));

    const ids = results.flat().flatMap((result) => (result.id === null ? [] : [result.id]));
    // One link per alias, and a taken alias used no id: the ids are exactly 1..rounds.
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: rounds }, (_, i) => i + 1));
    for (const own of results) {
      const mine = own.flatMap((result) => (result.id === null ? [] : [result.id]));
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    const store = await createLmdbStore({ dataDir });
    try {
      for (let i = 0; i < rounds; i += 1) {
        const winners = results
          .map((own) => own[i])
          .filter((r) => r !== undefined && r.id !== null);
        expect(winners).toHaveLength(1);
        await expect(store.links.findByAlias('acme.link', `race-${i}`)).resolves.toMatchObject({
          id: winners[0]?.id,
          url: winners[0]?.url,
        });
      }
      // The sequence goes on from the highest id any process was given, after a restart too.
      const next = await store.links.insert({
        domain: 'acme.link',
        alias: 'after-race',
        url: 'https://example.com/after',
        redirectType: 301,
        scheme: 'https',
        organizationId: 'acme',
        groupApiId: '1',
        userId: 'alice',
        createdAt: new Date(),
      });
      expect(next).toMatchObject({ id: rounds + 1 });
    } finally {
      await store.close();
    }
  });
});

describe('LMDB: a 200 means the link is on disk', () => {
  it('loses no link answered 200 when the server is killed (SIGKILL) under load', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const service = await startChildService(build.dir, { ...UNLIMITED, DATA_DIR: dataDir });
    children.push(service);
    const answered: Array<{ alias: string; id: number; url: string }> = [];
    let attempts = 0;
    let stop = false;
    const worker = async (w: number) => {
      for (let n = 0; !stop; n += 1) {
        const alias = `k${w}-${n}`;
        const url = `https://example.com/${alias}`;
        attempts += 1;
        try {
          const answer = await create(
            service.httpPort,
            service.token,
            createBody(service, alias, url),
          );
          if (answer.status === 200) {
            const { data } = JSON.parse(answer.text) as { data: { id: number } };
            answered.push({ alias, id: data.id, url });
          }
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (answered.length < 150) await pause(20);
    service.child.kill('SIGKILL');
    expect(await service.exited).toBe('SIGKILL');
    stop = true;
    await Promise.all(workers);
    // Some requests were in flight when the process died: the kill came mid-load.
    expect(attempts).toBeGreaterThan(answered.length);

    const store = await createLmdbStore({ dataDir });
    try {
      for (const link of answered) {
        await expect(
          store.links.findByAlias('localhost:' + String(service.httpPort), link.alias),
        ).resolves.toMatchObject({ id: link.id, url: link.url });
      }
    } finally {
      await store.close();
    }
  });
});

describe('LMDB: one service per DATA_DIR while it counts rate limits in its own memory', () => {
  it('refuses a second `npm start` on the directory, and serves again once the first is killed', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const first = await startChildService(build.dir, { DATA_DIR: dataDir });
    children.push(first);
    const pid = String(first.child.pid);

    const second = await runServiceUntilExit(build.dir, { DATA_DIR: dataDir });
    expect(second.code).toBe(1);
    expect(second.output).toContain(
      `shortlink failed to start: DATA_DIR ${dataDir} is already served by another shortlink service (pid ${pid})`,
    );
    expect(second.output).not.toMatch(/gateway listening/);
    const redis = await runServiceUntilExit(build.dir, {
      DATA_DIR: dataDir,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(redis.code).toBe(1);
    expect(redis.output).toContain(`(pid ${pid}) that counts rate limits in its own memory`);

    // The claim dies with its process: no stale claim after a SIGKILL.
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const third = await startChildService(build.dir, { DATA_DIR: dataDir });
    children.push(third);
    const answer = await create(third.httpPort, first.token, createBody(first, 'after-kill'));
    expect(answer.status).toBe(200);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });
});

describe('LMDB: the demo on the first start, and the same credentials after a restart', () => {
  it('prints the demo once; after a restart it makes none and the printed token still works', async () => {
    const dataDir = join(await dirs.make(), 'data');
    // One port for both starts: the demo's link domain is localhost:<port>.
    const env = { ...UNLIMITED, DATA_DIR: dataDir, PORT: String(await freePort()) };
    const first = await startChildService(build.dir, env);
    children.push(first);
    expect(first.token).toMatch(/^slpat_/);
    expect(first.output()).toContain(`embedded LMDB store in ${dataDir}`);
    const before = await create(first.httpPort, first.token, createBody(first, 'before'));
    expect(before.status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startChildService(build.dir, env);
    children.push(second);
    expect(second.output()).toContain(NO_DEMO_MESSAGE);
    expect(second.output()).not.toContain('personal access token');
    const after = await create(second.httpPort, first.token, createBody(first, 'after'));
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text)).toMatchObject({ code: 0, data: { id: 2, alias: 'after' } });
    // The line says how to get secrets again, and the command it names works beside the server.
    const noDemo = logRecords(second.output()).find((record) => record.msg === NO_DEMO_MESSAGE);
    expect(noDemo?.credentials).toBe(NEW_CREDENTIALS_HINT);
    const issued = shownOnce(
      await adminSucceeds(build.dir, { DATA_DIR: dataDir }, 'token', 'create', '--user', 'demo'),
    );
    const withNewToken = await create(second.httpPort, issued, createBody(first, 'new-token'));
    expect(withNewToken.status).toBe(200);
    const followed = await sendRaw({
      port: second.httpPort,
      method: 'GET',
      path: '/before',
      headers: { Host: `localhost:${second.httpPort}` },
    });
    expect(followed.status).toBe(301);
    expect(followed.headers.location).toBe('https://example.com/landing');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});

describe('LMDB: a DATA_DIR it cannot use stops `npm start` with a message naming the path', () => {
  const expectRefused = (result: { code: number | null; output: string }, message: string) => {
    expect(result.code).toBe(1);
    expect(result.output).toContain(`shortlink failed to start: ${message}`);
    expect(result.output).not.toMatch(/gateway listening/);
  };

  it('refuses a file where the directory should be', async () => {
    const file = join(await dirs.make(), 'data');
    await writeFile(file, 'x');
    expectRefused(
      await runServiceUntilExit(build.dir, { DATA_DIR: file }),
      `DATA_DIR ${file} is not a directory`,
    );
  });

  it('refuses a store written in a newer format', async () => {
    const dataDir = join(await dirs.make(), 'data');
    await (await createLmdbStore({ dataDir })).close();
    await formatVersionIn(dataDir, FORMAT_VERSION + 1);
    expectRefused(
      await runServiceUntilExit(build.dir, { DATA_DIR: dataDir }),
      `DATA_DIR ${dataDir} holds data in format version ${FORMAT_VERSION + 1}`,
    );
  });

  const mounting = mountSupport();
  const onMounts = mounting.available ? it : it.skip;
  if (!mounting.available) {
    process.stderr.write(
      `\nLMDB read-only and full-disk start tests SKIPPED: ${mounting.reason}\n`,
    );
  }

  onMounts('refuses a read-only file system', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'ro'), { sizeKb: 256, readOnly: true });
    mounts.push(mount);
    expectRefused(
      await runServiceUntilExit(build.dir, { DATA_DIR: mount.dir }),
      `DATA_DIR ${mount.dir} is not writable by this process`,
    );
  });

  onMounts('refuses a full disk', async () => {
    const mount = await mountTmpfs(join(await dirs.make(), 'full'), { sizeKb: 64 });
    mounts.push(mount);
    await fillUp(mount.dir);
    const dataDir = join(mount.dir, 'data');
    expectRefused(
      await runServiceUntilExit(build.dir, { DATA_DIR: dataDir }),
      `DATA_DIR ${dataDir}`,
    );
  });
});
