import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning, startChildService, type ChildService } from '../support/child-service';
import { ownConnectionClient } from '../support/grpc-client';
import { pause, sendRaw } from '../support/raw-http';
import { coversEveryWorker, logRecords, workerPids } from '../support/service-log';
import { UNLIMITED } from '../support/in-process-service';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { outcomeOf } from '../support/grpc-call';
import { bearer } from '../support/grpc-metadata';
import {
  UpdateShortLinkRequest,
  type UpdateShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';

jest.setTimeout(240_000);

/** CHANGE_PROPAGATION_SECONDS for this service: short, so the test waits little. */
const BOUND_SECONDS = 1;
/** Rounds of follows sent until both workers have answered. */
const MAX_ROUNDS = 16;

let build: TempBuild;
let service: ChildService;
let dataDir: string;
let domain: string;

/** One REST follow on a fresh connection: its status and Location. */
async function follow(alias: string): Promise<string> {
  const answer = await sendRaw({
    port: service.httpPort,
    method: 'GET',
    path: `/${alias}`,
    headers: { Host: domain },
  });
  return `${answer.status} ${String(answer.headers.location)}`;
}

/** Follows `alias` until both workers have answered, every answer being `expected`. */
async function everyWorkerRedirects(alias: string, expected: string): Promise<void> {
  const from = logRecords(service.output()).length;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const answers = await Promise.all(Array.from({ length: 6 }, () => follow(alias)));
    expect(answers).toEqual(Array(6).fill(expected));
    // Log lines are written asynchronously: give them a moment before reading who answered.
    await pause(50);
    const pids = logRecords(service.output())
      .slice(from)
      .filter(
        (record) =>
          record.msg === 'request completed' &&
          (record.req as { path?: string })?.path === `/${alias}`,
      )
      .map((record) => record.pid);
    if (coversEveryWorker(service, pids)) return;
  }
  throw new Error(`the follows of ${alias} never reached both workers`);
}

beforeAll(async () => {
  build = await compileToTemp();
  dataDir = await mkdtemp(join(tmpdir(), 'shortlink-edits-'));
  service = await startChildService(build.dir, {
    ...UNLIMITED,
    WORKERS: '2',
    DATA_DIR: dataDir,
    CHANGE_PROPAGATION_SECONDS: String(BOUND_SECONDS),
  });
  await service.logged('workers ready');
  domain = `localhost:${service.httpPort}`;
});

afterAll(async () => {
  if (service) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  await build?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('WORKERS=2 on LMDB: an edit reaches every worker within CHANGE_PROPAGATION_SECONDS', () => {
  it('a url changed over gRPC is where every worker redirects once the bound has passed', async () => {
    const created = await sendRaw({
      port: service.httpPort,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${service.token}` },
      body: JSON.stringify({
        organization_key: service.organizationKey,
        url_group_id: service.urlGroupId,
        url: 'https://example.com/before',
        alias: 'edit-a',
      }),
    });
    expect(created.status).toBe(200);
    // Both workers hold the link in their cache before the edit.
    await everyWorkerRedirects('edit-a', '301 https://example.com/before');

    const client = ownConnectionClient(service.grpcPort);
    try {
      const outcome = await outcomeOf<UpdateShortLinkResponse>((callback) =>
        client.updateShortLink(
          UpdateShortLinkRequest.fromPartial({
            organizationKey: service.organizationKey,
            alias: 'edit-a',
            updateMask: ['url', 'redirect_type'],
            url: 'https://example.com/after',
            redirectType: 302,
          }),
          bearer(service.token),
          { deadline: Date.now() + 10_000 },
          callback,
        ),
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.response?.shortLink?.url).toBe('https://example.com/after');
    } finally {
      client.close();
    }
    // The bound, and a margin for the machine's load.
    await pause(BOUND_SECONDS * 1000 + 500);
    await everyWorkerRedirects('edit-a', '302 https://example.com/after');
  });
});
