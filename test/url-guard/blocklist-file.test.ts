import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlocklistFile } from '../../core/url-guard/blocklist-file';
import { createBlocklistRule } from '../../core/url-guard/blocklist-rule';
import { eventually } from '../support/eventually';
import { organization, recordingLogger } from './fixtures';

const BLOCKED = { blocked: true, reason: 'the host is on the blocklist' };

describe('blocklist file', () => {
  let dir: string;
  let file: BlocklistFile | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blocklist-'));
  });
  afterEach(async () => {
    file?.close();
    file = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (path: string) => {
    const logger = recordingLogger();
    file = await BlocklistFile.open(path, { pollMs: 25, logger });
    const rule = createBlocklistRule(file);
    const check = (url: string) => rule.check(new URL(url), { organization });
    const warnings = () => logger.entries.filter((entry) => entry.level === 'warn');
    return { file, check, warnings };
  };
  /** Replaces the file atomically, as deployment tools do. */
  const replace = async (path: string, text: string) => {
    await writeFile(`${path}.tmp`, text);
    await rename(`${path}.tmp`, path);
  };
  /** Waits for three full polls, so the file's current state has certainly been looked at. */
  const settle = async (watched: BlocklistFile) => {
    const target = watched.pollCount + 3;
    await eventually(() => watched.pollCount >= target, 'the blocklist to be polled');
  };

  it('refuses a listed domain and its subdomains, not look-alikes', async () => {
    const path = join(dir, 'blocklist.txt');
    await writeFile(path, '# test\nevil.example\n');
    const { check } = await open(path);
    expect(await check('https://evil.example/')).toEqual(BLOCKED);
    expect(await check('https://login.EVIL.example./x')).toEqual(BLOCKED);
    expect(await check('https://notevil.example/')).toEqual({ blocked: false });
    expect(await check('https://evil.example.com/')).toEqual({ blocked: false });
  });

  it('picks up a change in place and an atomic replacement', async () => {
    const path = join(dir, 'blocklist.txt');
    await writeFile(path, 'evil.example\n');
    const { check } = await open(path);
    expect(await check('https://other.example/')).toEqual({ blocked: false });

    await writeFile(path, 'evil.example\nother.example\n');
    await eventually(
      async () => (await check('https://other.example/')).blocked,
      'the edited blocklist to be applied',
    );

    const next = join(dir, 'blocklist.next');
    await writeFile(next, 'third.example\n');
    await rename(next, path);
    await eventually(
      async () => (await check('https://third.example/')).blocked,
      'the replaced blocklist to be applied',
    );
    expect(await check('https://evil.example/')).toEqual({ blocked: false });
  });

  it('keeps the last good list when the file turns invalid or disappears, and warns once per change', async () => {
    const path = join(dir, 'blocklist.txt');
    await writeFile(path, 'evil.example\n');
    const { file: watched, check, warnings } = await open(path);

    await replace(path, 'evil.example\nnot a domain at all\n');
    await eventually(() => warnings().length === 1, 'a warning about the broken file');
    await settle(watched);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.object).toMatchObject({ problem: expect.stringContaining('line 2') });
    expect(await check('https://evil.example/')).toEqual(BLOCKED);
    expect(await check('https://not.example/')).toEqual({ blocked: false });

    await rm(path);
    await eventually(() => warnings().length === 2, 'a warning about the missing file');
    await settle(watched);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]?.object).toMatchObject({ problem: expect.stringContaining('ENOENT') });
    expect(await check('https://evil.example/')).toEqual(BLOCKED);

    await writeFile(path, 'fixed.example\n');
    await eventually(
      async () => (await check('https://fixed.example/')).blocked,
      'the repaired blocklist to be applied',
    );
    expect(await check('https://evil.example/')).toEqual({ blocked: false });
    expect(warnings()).toHaveLength(2);
  });

  it('keeps the last good list when the path stops being a readable file', async () => {
    const path = join(dir, 'blocklist.txt');
    await writeFile(path, 'evil.example\n');
    const { check, warnings } = await open(path);
    await rm(path);
    await mkdir(path);
    await eventually(() => warnings().length === 1, 'a warning about the unreadable path');
    expect(warnings()[0]?.object).toMatchObject({ problem: expect.stringContaining('ENOTFILE') });
    expect(await check('https://evil.example/')).toEqual(BLOCKED);
  });

  it('refuses to start on a missing or invalid file', async () => {
    await expect(open(join(dir, 'missing.txt'))).rejects.toThrow(/ENOENT/);
    const path = join(dir, 'bad.txt');
    await writeFile(path, 'https://evil.example/\n');
    await expect(open(path)).rejects.toThrow(/line 1 is not a domain/);
  });
});
