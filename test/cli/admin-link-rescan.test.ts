import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { REPUTATION_LOOKUP_OFF } from '../../core/cli/rescan-command';
import type { LinkRecord } from '../../core/ports/link-store';
import { runAdmin } from '../support/admin-cli';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import { eventually } from '../support/eventually';
import { insertLink, provisionOrganization } from '../support/link-fixture';
import { tempDirs } from '../support/temp-dirs';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from '../url-guard/fake-safe-browsing';

jest.setTimeout(120_000);

const dirs = tempDirs('admin-link-rescan');
let build: TempBuild;
let fake: FakeSafeBrowsing;

beforeAll(async () => {
  build = await compileToTemp();
});
afterAll(async () => {
  await build?.remove();
  await dirs.removeAll();
});
beforeEach(async () => {
  fake = await startFakeSafeBrowsing();
});
afterEach(() => fake.close());

/** A DATA_DIR holding organizations acme and beta and one link to each URL given, in order. */
async function dataDirWith(links: Array<[organization: string, url: string]>): Promise<string> {
  const dataDir = join(await dirs.make(), 'data');
  const store = await createLmdbStore({ dataDir });
  try {
    await provisionOrganization(store, 'acme');
    await provisionOrganization(store, 'beta');
    for (const [index, [organization, url]] of links.entries()) {
      await insertLink(store, organization, `l${index + 1}`, url);
    }
  } finally {
    await store.close();
  }
  return dataDir;
}

/** Every link of the DATA_DIR, by id (the CLI is another process: the store is read afresh). */
async function linksOf(dataDir: string): Promise<Map<number, LinkRecord>> {
  const store = await createLmdbStore({ dataDir, readOnly: true });
  try {
    const links = await store.links.list({ limit: 1000 });
    return new Map(links.map((link) => [link.id, link]));
  } finally {
    await store.close();
  }
}

/** How many times the reputation stub was asked about each URL. */
function lookupsPerUrl(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of fake.requests) {
    const body = request.body as { threatInfo: { threatEntries: Array<{ url: string }> } };
    for (const { url } of body.threatInfo.threatEntries)
      counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

/** The compiled CLI as a child process whose output can be watched while it runs. */
function startAdmin(env: Record<string, string>, ...args: string[]) {
  const child = spawn(process.execPath, [join(build.dir, 'core', 'cli', 'admin.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', NODE_PATH: join(ROOT, 'node_modules'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('admin link rescan (LMDB, compiled CLI)', () => {
  it('disables the links the blocklist now refuses, reason "rescan: blocklist", within --org', async () => {
    const blocklist = join(await dirs.make(), 'blocklist.txt');
    await writeFile(blocklist, '# added after the links were made\nevil.example\n');
    const dataDir = await dataDirWith([
      ['acme', 'https://fine.example/'],
      ['acme', 'https://login.evil.example/a'],
      ['beta', 'https://evil.example/b'],
      ['acme', 'https://evil.example/c'],
    ]);
    const env = { DATA_DIR: dataDir, URL_BLOCKLIST_FILE: blocklist };
    const run = await runAdmin(build.dir, env, 'link', 'rescan', '--org', 'acme');
    expect(run).toEqual({
      code: 0,
      stdout: [
        'disabled link 4 https://acme.link/l4 (rescan: blocklist)',
        'disabled link 2 https://acme.link/l2 (rescan: blocklist)',
        'rescanned 3 links: 2 disabled, 1 kept, 0 undecided, 0 skipped (disabled already)',
        '',
      ].join('\n'),
      // No SAFE_BROWSING_URL: said, on standard error.
      stderr: `${REPUTATION_LOOKUP_OFF}\n`,
    });
    const links = await linksOf(dataDir);
    expect(links.get(2)?.disabled).toEqual({
      reason: 'rescan: blocklist',
      at: expect.any(Date),
      by: 'rescan',
    });
    expect(links.get(4)?.disabled?.reason).toBe('rescan: blocklist');
    // Outside the scope: beta's link stays as it was.
    expect([1, 3].map((id) => links.get(id)?.disabled)).toEqual([undefined, undefined]);
    expect(existsSync(join(dataDir, 'rescan-checkpoint.json'))).toBe(false);

    // Run again over every link: acme's disabled ones are passed over, beta's is disabled now.
    const again = await runAdmin(build.dir, env, 'link', 'rescan');
    expect(again.stdout).toBe(
      'disabled link 3 https://beta.link/l3 (rescan: blocklist)\n' +
        'rescanned 2 links: 1 disabled, 1 kept, 0 undecided, 2 skipped (disabled already)\n',
    );
  });

  it('holds to the reputation quota, stops cleanly on SIGINT with a checkpoint, and a rerun checks nothing twice', async () => {
    const urls = [1, 2, 3, 4, 5].map((i) => `https://site-${i}.example/`);
    fake.threats.set(urls[1]!, { threatType: 'MALWARE' }); // link 2
    fake.threats.set(urls[3]!, { threatType: 'SOCIAL_ENGINEERING' }); // link 4
    const dataDir = await dataDirWith(urls.map((url) => ['acme', url]));
    // Four lookups a minute: acme alone may take two (a share is kept for another organization).
    const env = { DATA_DIR: dataDir, SAFE_BROWSING_URL: fake.url, SAFE_BROWSING_PER_MINUTE: '4' };
    const first = startAdmin(env, 'link', 'rescan');
    await eventually(
      () => first.output.stderr.includes('quota is used up'),
      'the rescan to wait for the quota',
      60_000,
    );
    // Links 5 and 4 were checked; 3 waits for the next minute: no call meanwhile.
    expect(fake.requests).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.requests).toHaveLength(2);
    expect(first.output.stderr).toMatch(
      /admin: the reputation lookup's quota is used up: waiting (\d+) s, then going on\n/,
    );
    // Until the quota's minute ends (it began when the guard was built).
    const waited = Number(/waiting (\d+) s/.exec(first.output.stderr)?.[1]);
    expect(waited).toBeGreaterThanOrEqual(1);
    expect(waited).toBeLessThanOrEqual(60);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(first.output.stdout).toBe(
      'disabled link 4 https://acme.link/l4 (rescan: reputation)\n' +
        'rescan stopped after 2 links: 1 disabled, 1 kept, 0 undecided, 0 skipped (disabled already)\n',
    );
    const checkpointPath = join(dataDir, 'rescan-checkpoint.json');
    expect(first.output.stderr).toContain(
      `admin: checkpoint saved in ${checkpointPath}: run the same command again to continue`,
    );
    expect((await stat(checkpointPath)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(checkpointPath, 'utf8'))).toMatchObject({
      organizationId: null,
      lastId: 4,
      counts: { checked: 2, disabled: 1, kept: 1 },
    });

    // The rerun (with a quota to spare) continues below link 4.
    const second = await runAdmin(
      build.dir,
      { ...env, SAFE_BROWSING_PER_MINUTE: '100' },
      'link',
      'rescan',
    );
    expect(second).toEqual({
      code: 0,
      stdout:
        'disabled link 2 https://acme.link/l2 (rescan: reputation)\n' +
        'rescanned 5 links: 2 disabled, 3 kept, 0 undecided, 0 skipped (disabled already)\n',
      stderr: 'admin: continuing the rescan below link 4 (2 links finished before)\n',
    });
    expect(lookupsPerUrl()).toEqual(new Map(urls.map((url) => [url, 1])));
    expect(existsSync(checkpointPath)).toBe(false);
    const links = await linksOf(dataDir);
    expect([1, 2, 3, 4, 5].map((id) => links.get(id)?.disabled?.reason)).toEqual([
      undefined,
      'rescan: reputation',
      undefined,
      'rescan: reputation',
      undefined,
    ]);
  });

  it('stops on SIGTERM too (exit status 143), and refuses a checkpoint of another scope with exit status 2', async () => {
    const dataDir = await dataDirWith([
      ['acme', 'https://one.example/'],
      ['acme', 'https://two.example/'],
      ['acme', 'https://three.example/'],
    ]);
    const checkpoint = join(await dirs.make(), 'my-checkpoint.json');
    const env = { DATA_DIR: dataDir, SAFE_BROWSING_URL: fake.url, SAFE_BROWSING_PER_MINUTE: '2' };
    const first = startAdmin(env, 'link', 'rescan', '--org', 'acme', '--checkpoint', checkpoint);
    await eventually(() => first.output.stderr.includes('quota is used up'), 'the wait', 60_000);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
    expect(JSON.parse(await readFile(checkpoint, 'utf8'))).toMatchObject({
      organizationId: 'acme',
      lastId: 3,
    });
    // Nothing in DATA_DIR: the checkpoint is where --checkpoint said.
    expect(existsSync(join(dataDir, 'rescan-checkpoint.json'))).toBe(false);
    const other = await runAdmin(build.dir, env, 'link', 'rescan', '--checkpoint', checkpoint);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('run it again with --org acme to finish it');
    expect(fake.requests).toHaveLength(1);
  });
});
