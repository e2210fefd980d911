import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, status } from '@grpc/grpc-js';
import { isRunning, startChildService, type ChildService } from '../support/child-service';
import { ownConnectionClient } from '../support/grpc-client';
import { pause, sendRaw } from '../support/raw-http';
import { coversEveryWorker, logRecords, workerPids } from '../support/service-log';
import { UNLIMITED } from '../support/in-process-service';
import { adminSucceeds } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { outcomeOf } from '../support/grpc-call';
import {
  ResolveShortLinkRequest,
  type ResolveShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';

jest.setTimeout(240_000);

/** The default bound within which a change reaches every process (CHANGE_PROPAGATION_SECONDS). */
const BOUND_MS = 5_000;
/** Rounds of follows sent until both workers have answered each gateway. */
const MAX_ROUNDS = 16;

let build: TempBuild;
let service: ChildService;
let dataDir: string;
let blocklist: string;
let domain: string;

const admin = (...args: string[]) => adminSucceeds(build.dir, { DATA_DIR: dataDir }, ...args);

function create(alias: string, url: string) {
  return sendRaw({
    port: service.httpPort,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${service.token}` },
    body: JSON.stringify({
      organization_key: service.organizationKey,
      url_group_id: service.urlGroupId,
      url,
      alias,
    }),
  });
}

/** One REST follow on a fresh connection: its status and code (28 from a JSON 410). */
async function restFollow(alias: string): Promise<string> {
  const answer = await sendRaw({
    port: service.httpPort,
    method: 'GET',
    path: `/${alias}`,
    headers: { Host: domain, Accept: 'application/json' },
  });
  if (answer.status === 410) {
    const body = JSON.parse(answer.text) as { code: number };
    expect(answer.headers.location).toBeUndefined();
    return `410:${body.code}`;
  }
  return String(answer.status);
}

/** One ResolveShortLink on a connection of its own: OK, or the status and its code trailer. */
async function grpcResolve(alias: string): Promise<string> {
  const client = ownConnectionClient(service.grpcPort);
  try {
    const outcome = await outcomeOf<ResolveShortLinkResponse>((callback) =>
      client.resolveShortLink(
        ResolveShortLinkRequest.fromPartial({ domain, alias }),
        new Metadata(),
        { deadline: Date.now() + 10_000 },
        callback,
      ),
    );
    if (outcome.error === undefined) return 'OK';
    const code = outcome.status.metadata.get('shortlink-error-code')[0];
    return `${status[outcome.error.code]}:${String(code)}`;
  } finally {
    client.close();
  }
}

/** The pids whose log lines answered `alias` on REST (by path) since `from` lines, and on gRPC. */
function answeringPids(from: number, alias: string) {
  const records = logRecords(service.output()).slice(from);
  const rest = records.filter(
    (record) =>
      record.msg === 'request completed' && (record.req as { path?: string })?.path === `/${alias}`,
  );
  const grpc = records.filter(
    (record) => record.msg === 'call completed' && record.method === 'ResolveShortLink',
  );
  return { rest: rest.map((record) => record.pid), grpc: grpc.map((record) => record.pid) };
}

/**
 * Follows `alias` over REST (fresh connections) and gRPC (a connection per call) until both
 * workers have answered on each gateway, and checks that every answer was `rest` / `grpc`.
 */
async function everyWorkerAnswers(alias: string, rest: string, grpc: string): Promise<void> {
  const from = logRecords(service.output()).length;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => restFollow(alias)),
      ...Array.from({ length: 3 }, () => grpcResolve(alias)),
    ]);
    expect(answers.slice(0, 6)).toEqual(Array(6).fill(rest));
    expect(answers.slice(6)).toEqual(Array(3).fill(grpc));
    // Log lines are written asynchronously: give them a moment before reading who answered.
    await pause(50);
    const pids = answeringPids(from, alias);
    if (coversEveryWorker(service, pids.rest) && coversEveryWorker(service, pids.grpc)) return;
  }
  throw new Error(`the follows of ${alias} never reached both workers on both gateways`);
}

/** Runs `change` (an admin command), waits out the bound from its end, then checks the follows. */
async function afterBound(change: () => Promise<unknown>): Promise<void> {
  await change();
  await pause(BOUND_MS);
}

beforeAll(async () => {
  build = await compileToTemp();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-governance-'));
  blocklist = join(dataDir, '..', `${dataDir.split('/').pop() ?? 'x'}-blocklist.txt`);
  await writeFile(blocklist, '# domains refused\n');
  service = await startChildService(build.dir, {
    ...UNLIMITED,
    WORKERS: '2',
    DATA_DIR: dataDir,
    URL_BLOCKLIST_FILE: blocklist,
  });
  await service.logged('workers ready');
  domain = `localhost:${service.httpPort}`;
  expect((await create('gov-a', 'https://example.com/a')).status).toBe(200);
  expect((await create('gov-b', 'https://soon-blocked.example/b')).status).toBe(200);
});

afterAll(async () => {
  if (service) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  await build?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (blocklist) await rm(blocklist, { force: true });
});

describe('WORKERS=2: a takedown reaches every worker within 5 s', () => {
  it('link disable and link enable through the admin CLI', async () => {
    // Both workers have the link cached before the change.
    await everyWorkerAnswers('gov-a', '301', 'OK');
    await afterBound(() =>
      admin('link', 'disable', '--domain', domain, '--alias', 'gov-a', '--reason', 'e2e takedown'),
    );
    await everyWorkerAnswers('gov-a', '410:28', 'FAILED_PRECONDITION:28');
    await afterBound(() => admin('link', 'enable', '--domain', domain, '--alias', 'gov-a'));
    await everyWorkerAnswers('gov-a', '301', 'OK');
  });

  it("an organization's deactivation and activation", async () => {
    await afterBound(() => admin('org', 'deactivate', '--id', 'demo'));
    await everyWorkerAnswers('gov-a', '410:28', 'FAILED_PRECONDITION:28');
    await afterBound(() => admin('org', 'activate', '--id', 'demo'));
    await everyWorkerAnswers('gov-a', '301', 'OK');
  });

  it('a blocklist line added to the file stops the links to that host, and only those', async () => {
    await everyWorkerAnswers('gov-b', '301', 'OK');
    await afterBound(() => appendFile(blocklist, 'soon-blocked.example\n'));
    await everyWorkerAnswers('gov-b', '410:28', 'FAILED_PRECONDITION:28');
    await everyWorkerAnswers('gov-a', '301', 'OK');
  });
});
