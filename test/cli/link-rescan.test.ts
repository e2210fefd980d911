import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemoryStore, type MemoryStore } from '../../core/adapters/memory/memory-store';
import { systemClock } from '../../core/adapters/system-clock';
import { linkCommand } from '../../core/cli/link-commands';
import { rescanLinks, type RescanReport } from '../../core/cli/link-rescan';
import { readCheckpoint } from '../../core/cli/rescan-checkpoint';
import { REPUTATION_LOOKUP_OFF, runRescanCommand } from '../../core/cli/rescan-command';
import { ShortlinkError } from '../../core/errors/shortlink-error';
import { silentLogger } from '../../core/ports/logger';
import type { UrlGuard, UrlVerdict } from '../../core/ports/url-guard';
import { ProvisioningError } from '../../core/provisioning/provisioning-error';
import { loadConfig } from '../../core/runtime/config';
import { createReputationRule } from '../../core/url-guard/reputation-rule';
import { SafeBrowsingClient } from '../../core/url-guard/safe-browsing/safe-browsing-client';
import { createUrlGuardChain } from '../../core/url-guard/url-guard-chain';
import { insertLink, provisionOrganization } from '../support/link-fixture';
import { tempDirs } from '../support/temp-dirs';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from '../url-guard/fake-safe-browsing';

const dirs = tempDirs('link-rescan');
let store: MemoryStore;
let dir: string;
let fake: FakeSafeBrowsing;

beforeEach(async () => {
  store = createMemoryStore();
  dir = await dirs.make();
  fake = await startFakeSafeBrowsing();
  await provisionOrganization(store, 'acme');
  await provisionOrganization(store, 'beta');
});
afterEach(async () => {
  await fake.close();
  await store.close();
});
afterAll(() => dirs.removeAll());

/** The URLs the reputation stub was asked about, in order. */
const lookedUp = () =>
  fake.requests.map(
    (request) =>
      (request.body as { threatInfo: { threatEntries: Array<{ url: string }> } }).threatInfo
        .threatEntries[0]?.url,
  );

/** What a terminal shows, kept apart: standard output and standard error. */
function capture(tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    streams: {
      out: { write: (text: string) => out.push(text) },
      err: { write: (text: string) => err.push(text), isTTY: tty, columns: 72 },
    },
  };
}

/** A report that records what it is told. */
function recordingReport() {
  const events: string[] = [];
  const report: RescanReport = {
    started: (after, _counts, ahead) => events.push(`started after ${after} ahead ${ahead}`),
    disabled: (link, reason) => events.push(`disabled ${link.id} ${reason}`),
    waiting: (seconds) => events.push(`waiting ${seconds}`),
    progress: () => undefined,
  };
  return { events, report };
}

const stateOf = async (id: number) => {
  const link = await store.links.findById(id);
  return link?.disabled ? `disabled: ${link.disabled.reason} by ${link.disabled.by}` : 'active';
};

describe('link rescan through the configured URL guard', () => {
  it('disables exactly the links a rule now refuses, with the rule as reason; passes disabled ones over', async () => {
    const blocklist = join(dir, 'blocklist.txt');
    await writeFile(blocklist, 'evil.example\n');
    fake.threats.set('https://reported.example/login', { threatType: 'SOCIAL_ENGINEERING' });
    await insertLink(store, 'acme', 'fine', 'https://fine.example/'); // 1
    await insertLink(store, 'acme', 'listed', 'https://login.evil.example/x'); // 2
    await insertLink(store, 'beta', 'reported', 'https://reported.example/login'); // 3
    await insertLink(store, 'acme', 'loop', 'https://beta.link/other'); // 4: another link domain
    const gone = await insertLink(store, 'acme', 'gone', 'https://evil.example/'); // 5
    const byHand = { at: new Date(), by: 'user:alice', refuseHeld: true } as const;
    await store.links.setDisabled(
      gone.id,
      { reason: 'by hand', at: byHand.at, by: byHand.by },
      byHand,
    );
    await insertLink(store, 'beta', 'same', 'https://fine.example/'); // 6: the cached answer

    const config = loadConfig({
      DATA_DIR: join(dir, 'data'),
      URL_BLOCKLIST_FILE: blocklist,
      SAFE_BROWSING_URL: fake.url,
    });
    const { out, err, streams } = capture();
    const outcome = await runRescanCommand(
      config,
      store,
      { checkpoint: join(dir, 'checkpoint.json') },
      { streams, signal: new AbortController().signal },
    );
    expect(outcome).toEqual({
      stopped: false,
      counts: { checked: 5, disabled: 3, kept: 2, undecided: 0, skipped: 1 },
    });
    expect(out.join('')).toBe(
      [
        'disabled link 4 https://acme.link/loop (rescan: link-domain)',
        'disabled link 3 https://beta.link/reported (rescan: reputation)',
        'disabled link 2 https://acme.link/listed (rescan: blocklist)',
        'rescanned 5 links: 3 disabled, 2 kept, 0 undecided, 1 skipped (disabled already)',
        '',
      ].join('\n'),
    );
    expect(err).toEqual([]);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map(stateOf))).toEqual([
      'active',
      'disabled: rescan: blocklist by rescan',
      'disabled: rescan: reputation by rescan',
      'disabled: rescan: link-domain by rescan',
      'disabled: by hand by user:alice',
      'active',
    ]);
    // Each takedown is in its link's history, by the rescan.
    const rescanned = await store.links.history(2, { after: 0, limit: 10 });
    expect(rescanned).toMatchObject([
      { position: 1, entry: { kind: 'disabled', by: 'rescan', reason: 'rescan: blocklist' } },
    ]);
    expect(rescanned[0]?.entry.at.getTime()).toBeGreaterThanOrEqual(byHand.at.getTime());
    await expect(store.links.history(5, { after: 0, limit: 10 })).resolves.toEqual([
      {
        position: 1,
        entry: { kind: 'disabled', at: byHand.at, by: 'user:alice', reason: 'by hand' },
      },
    ]);
    // Local rules first: only what they pass reaches the service, and each URL once.
    expect(lookedUp()).toEqual(['https://fine.example/', 'https://reported.example/login']);
    // A finished rescan leaves no checkpoint.
    await expect(readCheckpoint(join(dir, 'checkpoint.json'))).resolves.toBeNull();
  });

  it("checks one organization's links with --org, and refuses an unknown organization", async () => {
    await insertLink(store, 'acme', 'a', 'https://a.example/');
    await insertLink(store, 'beta', 'b', 'https://b.example/');
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), SAFE_BROWSING_URL: fake.url });
    const run = (org: string) =>
      runRescanCommand(
        config,
        store,
        { org, checkpoint: join(dir, 'checkpoint.json') },
        { streams: capture().streams, signal: new AbortController().signal },
      );
    expect((await run('beta')).counts.checked).toBe(1);
    expect(lookedUp()).toEqual(['https://b.example/']);
    await expect(run('nope')).rejects.toThrow(new ProvisioningError('no organization "nope"'));
  });

  it('counts a refusal without a verdict (the service unreachable, failing closed) as undecided, disabling nothing', async () => {
    fake.mode = { kind: 'status', status: 500 };
    await insertLink(store, 'acme', 'a', 'https://a.example/');
    const config = loadConfig({
      DATA_DIR: join(dir, 'data'),
      SAFE_BROWSING_URL: fake.url,
      SAFE_BROWSING_FAIL: 'closed',
    });
    const { out, err, streams } = capture();
    const outcome = await runRescanCommand(
      config,
      store,
      { checkpoint: join(dir, 'checkpoint.json') },
      { streams, signal: new AbortController().signal },
    );
    expect(outcome.counts).toEqual({ checked: 1, disabled: 0, kept: 0, undecided: 1, skipped: 0 });
    expect(await stateOf(1)).toBe('active');
    expect(out.join('')).toContain('rescanned 1 link: 0 disabled, 0 kept, 1 undecided');
    // The guard's warning reaches the operator.
    expect(err.join('')).toContain('admin: warning: reputation lookup failed {"why":"status 500"}');
  });
});

describe('link rescan within the reputation quota', () => {
  it('waits for a used-up quota and checks the same link again: nothing skipped, nothing disabled for it', async () => {
    // Two lookups a minute: acme alone may take one (a share is kept for another organization).
    let now = 1_700_000_000_000;
    const client = new SafeBrowsingClient({
      baseUrl: fake.url,
      threatTypes: ['MALWARE'],
      perMinute: 2,
      maxConcurrent: 1,
      timeoutMs: 5_000,
      maxWaitMs: 5_000,
      cleanCacheMs: 60_000,
      cacheEntries: 100,
      logger: silentLogger,
      now: () => now,
    });
    const guard = createUrlGuardChain([createReputationRule(client, 'open')], silentLogger);
    fake.threats.set('https://u2.example/', { threatType: 'MALWARE' });
    for (const i of [1, 2, 3]) await insertLink(store, 'acme', `u${i}`, `https://u${i}.example/`);
    const { events, report } = recordingReport();
    const checkedAt: number[] = [];
    try {
      const outcome = await rescanLinks({
        store,
        guard: {
          check: async (url, context) => {
            const verdict = await guard.check(url, context);
            checkedAt.push(now - 1_700_000_000_000);
            return verdict;
          },
        },
        clock: systemClock,
        organizationId: null,
        checkpointPath: join(dir, 'checkpoint.json'),
        storeName: 'test',
        signal: new AbortController().signal,
        report,
        // The quota's minute passes on the client's clock.
        wait: (ms) => {
          now += ms;
          return Promise.resolve();
        },
      });
      expect(outcome.counts).toEqual({
        checked: 3,
        disabled: 1,
        kept: 2,
        undecided: 0,
        skipped: 0,
      });
    } finally {
      await client.close();
    }
    expect(events).toEqual([
      'started after null ahead undefined',
      'waiting 60',
      'disabled 2 rescan: reputation',
      'waiting 60',
    ]);
    // One lookup per minute, each URL once, newest first.
    expect(lookedUp()).toEqual([
      'https://u3.example/',
      'https://u2.example/',
      'https://u1.example/',
    ]);
    expect(checkedAt).toEqual([0, 60_000, 120_000]);
    expect(await stateOf(2)).toBe('disabled: rescan: reputation by rescan');
  });
});

describe('link rescan checkpoint', () => {
  const countingGuard = (refuse: (url: string) => boolean, onCheck?: (count: number) => void) => {
    const checked: string[] = [];
    const guard: UrlGuard = {
      check: (url): Promise<UrlVerdict> => {
        checked.push(url.href);
        onCheck?.(checked.length);
        return Promise.resolve(
          refuse(url.href)
            ? { blocked: true, reason: 'listed', rule: 'blocklist' }
            : { blocked: false },
        );
      },
    };
    return { guard, checked };
  };
  const options = (guard: UrlGuard, signal: AbortSignal, organizationId: string | null = null) => ({
    store,
    guard,
    clock: systemClock,
    organizationId,
    checkpointPath: join(dir, 'checkpoint.json'),
    storeName: 'lmdb:/data',
    signal,
    report: recordingReport().report,
    saveEveryMs: 0,
  });

  it('stops cleanly when told, keeps what it finished, and a rerun continues below it without checking anything twice', async () => {
    for (let i = 1; i <= 8; i += 1)
      await insertLink(store, 'acme', `l${i}`, `https://l${i}.example/`);
    const bad = (url: string) => url === 'https://l6.example/' || url === 'https://l2.example/';
    const controller = new AbortController();
    // Stopped while the third link (6) is being checked: that one is still finished.
    const first = countingGuard(bad, (count) => count === 3 && controller.abort());
    const stopped = await rescanLinks(options(first.guard, controller.signal));
    expect(stopped).toEqual({
      stopped: true,
      counts: { checked: 3, disabled: 1, kept: 2, undecided: 0, skipped: 0 },
    });
    const path = join(dir, 'checkpoint.json');
    expect(await readCheckpoint(path)).toMatchObject({
      version: 1,
      store: 'lmdb:/data',
      organizationId: null,
      lastId: 6,
      counts: stopped.counts,
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const second = countingGuard(bad);
    const { events, report } = recordingReport();
    const done = await rescanLinks({
      ...options(second.guard, new AbortController().signal),
      report,
      countAhead: true,
    });
    expect(done).toEqual({
      stopped: false,
      counts: { checked: 8, disabled: 2, kept: 6, undecided: 0, skipped: 0 },
    });
    expect(events[0]).toBe('started after 6 ahead 5');
    expect([...first.checked, ...second.checked]).toEqual(
      [8, 7, 6, 5, 4, 3, 2, 1].map((i) => `https://l${i}.example/`),
    );
    await expect(readCheckpoint(path)).resolves.toBeNull();
  });

  it('saves the checkpoint when a check fails, so a rerun continues after the last finished link', async () => {
    for (let i = 1; i <= 4; i += 1)
      await insertLink(store, 'acme', `l${i}`, `https://l${i}.example/`);
    let calls = 0;
    const failing: UrlGuard = {
      check: () => {
        calls += 1;
        if (calls === 3) return Promise.reject(new ShortlinkError('BACKEND_UNAVAILABLE', 'down'));
        return Promise.resolve({ blocked: false });
      },
    };
    await expect(rescanLinks(options(failing, new AbortController().signal))).rejects.toThrow(
      'down',
    );
    expect(await readCheckpoint(join(dir, 'checkpoint.json'))).toMatchObject({
      lastId: 3,
      counts: { checked: 2 },
    });
    const rerun = countingGuard(() => false);
    await rescanLinks(options(rerun.guard, new AbortController().signal));
    expect(rerun.checked).toEqual(['https://l2.example/', 'https://l1.example/']);
  });

  it('refuses the checkpoint of another scope or store, and a file that is no checkpoint', async () => {
    await insertLink(store, 'acme', 'l1', 'https://l1.example/');
    const controller = new AbortController();
    controller.abort();
    await rescanLinks(options(countingGuard(() => false).guard, controller.signal, 'acme'));
    const path = join(dir, 'checkpoint.json');
    const signal = new AbortController().signal;
    const { guard, checked } = countingGuard(() => false);
    await expect(rescanLinks(options(guard, signal, null))).rejects.toThrow(
      `the checkpoint ${path} belongs to an unfinished rescan of the links of organization "acme": run it again with --org acme to finish it, or delete the file (or give another --checkpoint) to start this one`,
    );
    await expect(
      rescanLinks({ ...options(guard, signal, 'acme'), storeName: 'other' }),
    ).rejects.toThrow(`the checkpoint ${path} belongs to a rescan of another store (lmdb:/data)`);
    await writeFile(path, '{"lastId": 3}');
    await expect(rescanLinks(options(guard, signal, 'acme'))).rejects.toThrow(
      `${path} is not a rescan checkpoint this version can read`,
    );
    expect(checked).toEqual([]);
    await expect(
      rescanLinks({ ...options(guard, signal), checkpointPath: join(dir, 'no', 'where.json') }),
    ).rejects.toThrow(`the checkpoint's folder ${join(dir, 'no')} does not exist`);
  });

  it('refuses a directory, or a path under a file, as a mistake to correct (exit status 2), before any check', async () => {
    await insertLink(store, 'acme', 'l1', 'https://l1.example/');
    const { guard, checked } = countingGuard(() => false);
    const signal = new AbortController().signal;
    await expect(rescanLinks({ ...options(guard, signal), checkpointPath: dir })).rejects.toThrow(
      new ProvisioningError(
        `the checkpoint ${dir} is a directory: give --checkpoint a file's path, such as ${join(dir, 'rescan-checkpoint.json')}`,
      ),
    );
    const file = join(dir, 'plain.txt');
    await writeFile(file, 'x');
    await expect(
      rescanLinks({ ...options(guard, signal), checkpointPath: join(file, 'checkpoint.json') }),
    ).rejects.toThrow(new ProvisioningError(`the checkpoint's folder ${file} is not a directory`));
    expect(checked).toEqual([]);
    expect(await stateOf(1)).toBe('active');
  });

  it('says so through the command, --checkpoint naming the directory', async () => {
    const config = loadConfig({ DATA_DIR: dir });
    const run = runRescanCommand(
      config,
      store,
      { checkpoint: dir },
      { streams: capture().streams, signal: new AbortController().signal },
    );
    await expect(run).rejects.toBeInstanceOf(ProvisioningError);
    await expect(run).rejects.toThrow(`the checkpoint ${dir} is a directory`);
  });
});

describe('link rescan on a terminal', () => {
  it('draws a progress bar in place on standard error and ends with the summary on standard output', async () => {
    for (let i = 1; i <= 3; i += 1)
      await insertLink(store, 'acme', `l${i}`, `https://l${i}.example/`);
    const blocklist = join(dir, 'blocklist.txt');
    await writeFile(blocklist, 'l2.example\n');
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), URL_BLOCKLIST_FILE: blocklist });
    const { out, err, streams } = capture(true);
    await runRescanCommand(
      config,
      store,
      { checkpoint: join(dir, 'checkpoint.json') },
      { streams, signal: new AbortController().signal },
    );
    // No SAFE_BROWSING_URL: said first, then the bar.
    const [said, drawn] = [err[0], err.slice(1).join('')];
    expect(said).toBe(`${REPUTATION_LOOKUP_OFF}\n`);
    expect(drawn.startsWith('\rrescan [------------------------]   0% 0/3 links, 0 disabled')).toBe(
      true,
    );
    // Cleared before the disabled link's line, then drawn again.
    expect(out[0]).toBe('disabled link 2 https://acme.link/l2 (rescan: blocklist)\n');
    expect(drawn).toMatch(/\r {10,}\r\rrescan \[/);
    // The bar never outgrows the terminal (72 columns), and is cleared at the end.
    for (const line of drawn.split('\r')) expect(line.length).toBeLessThan(72);
    expect(drawn).toMatch(/\r +\r$/);
    expect(out.at(-1)).toBe(
      'rescanned 3 links: 1 disabled, 2 kept, 0 undecided, 0 skipped (disabled already)\n',
    );
  });
});

describe('link list', () => {
  it('pages through more links than one page holds, newest first, up to --limit', async () => {
    for (let i = 1; i <= 1203; i += 1)
      await insertLink(store, 'acme', `l${i}`, `https://x.example/${i}`);
    await insertLink(store, 'beta', 'b', 'https://x.example/b');
    const ids = async (options: Record<string, string>) => {
      const lines: string[] = [];
      await linkCommand('link list', options)(store, systemClock, (line) => {
        lines.push(line);
      });
      return lines.map((line) => (JSON.parse(line) as { id: number }).id);
    };
    const all = await ids({ org: 'acme' });
    expect(all).toEqual(Array.from({ length: 1203 }, (_, i) => 1203 - i));
    expect(await ids({ org: 'acme', limit: '1001' })).toEqual(all.slice(0, 1001));
    expect(await ids({ org: 'acme', limit: '500' })).toEqual(all.slice(0, 500));
  });
});
