import { join } from 'node:path';
import {
  GetShortLinkVisitsRequest,
  type GetShortLinkVisitsResponse,
  type ShortLinkServiceClient,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { startChildService, type ChildService } from '../support/child-service';
import { eventually } from '../support/eventually';
import { outcomeOf } from '../support/grpc-call';
import { grpcClient } from '../support/grpc-client';
import { bearer } from '../support/grpc-metadata';
import { UNLIMITED } from '../support/in-process-service';
import { sendRaw } from '../support/raw-http';
import { tempDirs } from '../support/temp-dirs';
import { within } from '../support/within';

/**
 * Visits across a crash and a graceful stop, on a real service on LMDB: a kill -9 loses at most
 * the counts gathered since the last flush and counts nothing twice; a SIGTERM flushes them all.
 */
jest.setTimeout(120_000);

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const BOT = 'curl/8.5.0';

const dirs = tempDirs('visits-crash');
const services: ChildService[] = [];
const clients: ShortLinkServiceClient[] = [];
let build: TempBuild;

beforeAll(async () => {
  build = await compileToTemp();
});

afterAll(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const service of services.splice(0)) {
    if (service.child.exitCode === null) service.child.kill('SIGKILL');
  }
  await build?.remove();
  await dirs.removeAll();
});

async function start(dataDir: string, flushSeconds: string): Promise<ChildService> {
  const service = await startChildService(build.dir, {
    ...UNLIMITED,
    DATA_DIR: dataDir,
    VISITS_FLUSH_SECONDS: flushSeconds,
  });
  services.push(service);
  return service;
}

interface Demo {
  token: string;
  organizationKey: string;
  urlGroupId: string;
  linkDomain: string;
}

/** The demo's credentials and link domain, as the first start on an empty store prints them. */
function demoOf(service: ChildService): Demo {
  const linkDomain = /link domain:\s+(\S+)/.exec(service.output())?.[1] ?? '';
  expect(linkDomain).toMatch(/^localhost:\d+$/);
  return { ...service, linkDomain };
}

async function createLink(service: ChildService, demo: Demo, alias: string): Promise<number> {
  const created = await sendRaw({
    port: service.httpPort,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${demo.token}` },
    body: JSON.stringify({
      organization_key: demo.organizationKey,
      url_group_id: demo.urlGroupId,
      url: `https://example.com/${alias}`,
      alias,
      redirect_type: 302,
    }),
  });
  expect(created.status).toBe(200);
  return (JSON.parse(created.text) as { data: { id: number } }).data.id;
}

/**
 * `count` follows of the link, all at once, half by a browser and half by curl; resolves once
 * every one has answered its redirect (each is then counted in the service's memory).
 */
async function follow(service: ChildService, demo: Demo, alias: string, count: number) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      sendRaw({
        port: service.httpPort,
        method: 'GET',
        path: `/${alias}`,
        headers: { Host: demo.linkDomain, 'User-Agent': index % 2 === 0 ? HUMAN : BOT },
      }),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(302));
}

/** GetShortLinkVisits of the link on `service`: its totals and today's counts. */
async function visitsOn(service: ChildService, demo: Demo, id: number) {
  const client = grpcClient(service.grpcPort);
  clients.push(client);
  const { response, error } = await outcomeOf<GetShortLinkVisitsResponse>((callback) =>
    client.getShortLinkVisits(
      GetShortLinkVisitsRequest.fromPartial({ organizationKey: demo.organizationKey, id, days: 2 }),
      bearer(demo.token),
      callback,
    ),
  );
  expect(error).toBeUndefined();
  const totals = response?.totals ?? { visits: -1, humans: -1, bots: -1 };
  const days = (response?.days ?? []).map((day) => day.counts?.visits ?? 0);
  // The days hold the totals (every visit of these links is of today or yesterday).
  expect(days.reduce((sum, visits) => sum + visits, 0)).toBe(totals.visits);
  return totals;
}

describe('visits of a real service on LMDB', () => {
  it('kill -9: what was flushed stays, what was not may be lost, nothing is counted twice', async () => {
    const N = 40;
    const M = 40;
    const dataDir = join(await dirs.make(), 'data');
    const first = await start(dataDir, '1');
    const demo = demoOf(first);
    const id = await createLink(first, demo, 'crash');

    await follow(first, demo, 'crash', N);
    // A flush (at most a second later) brings the N follows to the store; read while it runs.
    let flushed = await visitsOn(first, demo, id);
    await eventually(async () => {
      flushed = await visitsOn(first, demo, id);
      return flushed.visits >= N;
    }, 'the first follows flushed');
    expect(flushed).toEqual({ visits: N, humans: N / 2, bots: N / 2 });

    await follow(first, demo, 'crash', M);
    first.child.kill('SIGKILL');
    expect(await within(first.exited, 30_000)).toBe('SIGKILL');

    const second = await start(dataDir, '1');
    const after = await visitsOn(second, demo, id);
    expect(after.visits).toBeGreaterThanOrEqual(N);
    expect(after.visits).toBeLessThanOrEqual(N + M); // never more than the follows sent
    expect(after.humans).toBeGreaterThanOrEqual(N / 2);
    expect(after.humans).toBeLessThanOrEqual((N + M) / 2);
    expect(after.bots).toBeGreaterThanOrEqual(N / 2);
    expect(after.bots).toBeLessThanOrEqual((N + M) / 2);
    // Past another flush interval of the new process, nothing more arrives (nothing replayed).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await visitsOn(second, demo, id)).toEqual(after);
    second.child.kill('SIGTERM');
    expect(await within(second.exited, 60_000)).toBe(0);
  });

  it('SIGTERM before any flush interval: the stop flushes every visit, exactly', async () => {
    const K = 25;
    const dataDir = join(await dirs.make(), 'data');
    // A flush interval far past the test: only the stop's flush can store the visits.
    const first = await start(dataDir, '300');
    const demo = demoOf(first);
    const id = await createLink(first, demo, 'stop');

    await follow(first, demo, 'stop', K);
    expect(await visitsOn(first, demo, id)).toEqual({ visits: 0, humans: 0, bots: 0 });
    first.child.kill('SIGTERM');
    expect(await within(first.exited, 60_000)).toBe(0);

    const second = await start(dataDir, '300');
    expect(await visitsOn(second, demo, id)).toEqual({
      visits: K,
      humans: Math.ceil(K / 2),
      bots: Math.floor(K / 2),
    });
    second.child.kill('SIGTERM');
    expect(await within(second.exited, 60_000)).toBe(0);
  });
});
