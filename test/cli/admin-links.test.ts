import { ErrorCode } from '../../core';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { adminRefused, adminSucceeds, runAdmin, shownOnce } from '../support/admin-cli';
import { adminBesideServer, createWithAlias } from '../support/admin-beside-server';
import { eventually } from '../support/eventually';
import { insertLink, provisionOrganization } from '../support/link-fixture';
import { sendRaw } from '../support/raw-http';

jest.setTimeout(120_000);

const { dirs, buildDir, startServer } = adminBesideServer('admin-links');
let env: Record<string, string>;

/** Runs the compiled CLI on this file's DATA_DIR; expects success and nothing on stderr. */
const admin = (...args: string[]) => adminSucceeds(buildDir(), env, ...args);
const refused = (args: string[], runEnv = env) => adminRefused(buildDir(), runEnv, ...args);

const show = async (...args: string[]) =>
  JSON.parse(await admin('link', 'show', ...args)) as Record<string, unknown>;
const listed = async (...args: string[]) =>
  (await admin('link', 'list', ...args))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: number; alias: string });

beforeAll(async () => {
  const dataDir = join(await dirs.make(), 'data');
  env = { DATA_DIR: dataDir };
  const store = await createLmdbStore({ dataDir });
  try {
    await provisionOrganization(store, 'acme');
    await provisionOrganization(store, 'beta');
    await insertLink(store, 'acme', 'a1', 'https://example.com/one');
    await insertLink(store, 'acme', 'a2', 'https://example.com/two', {
      groupApiId: '2',
      redirectType: 302,
    });
    await insertLink(store, 'acme', 'a3', 'https://example.com/three');
    await insertLink(store, 'beta', 'b1', 'https://example.com/beta');
  } finally {
    await store.close();
  }
});

describe('admin link show and list', () => {
  it('shows one link as one JSON object, named by id or by link domain and alias', async () => {
    const expected = {
      id: 2,
      short_url: 'https://acme.link/a2',
      url: 'https://example.com/two',
      domain: 'acme.link',
      alias: 'a2',
      redirect_type: 302,
      organization_id: 'acme',
      url_group_id: '2',
      user_id: 'acme-user',
      state: 'active',
      created_at: '2026-01-02T03:04:05.000Z',
    };
    const output = await admin('link', 'show', '--id', '2');
    expect(output).toBe(`${JSON.stringify(expected)}\n`);
    expect(await show('--domain', 'acme.link', '--alias', 'a2')).toEqual(expected);
    // The domain as organizations' domains are compared: case and a trailing dot do not matter.
    expect(await show('--domain', 'ACME.Link.', '--alias', 'a2')).toEqual(expected);
  });

  it('lists an organization newest first, one JSON object a line; by group; up to --limit', async () => {
    expect((await listed('--org', 'acme')).map((link) => link.alias)).toEqual(['a3', 'a2', 'a1']);
    expect((await listed('--org', 'acme', '--group', '1')).map((link) => link.id)).toEqual([3, 1]);
    expect((await listed('--org', 'acme', '--limit', '2')).map((link) => link.id)).toEqual([3, 2]);
    expect(await listed('--org', 'beta')).toEqual([
      expect.objectContaining({ id: 4, alias: 'b1', organization_id: 'beta' }),
    ]);
  });

  it('refuses an unknown link, organization or group with exit status 2, saying which', async () => {
    expect((await refused(['link', 'show', '--id', '99'])).stderr).toBe('admin: no link id 99\n');
    expect((await refused(['link', 'show', '--domain', 'acme.link', '--alias', 'A1'])).stderr).toBe(
      'admin: no link acme.link/A1\n',
    );
    // The alias is the organization's: another domain's alias names no link there.
    expect((await refused(['link', 'show', '--domain', 'beta.link', '--alias', 'a1'])).stderr).toBe(
      'admin: no link beta.link/a1\n',
    );
    expect((await refused(['link', 'list', '--org', 'nope'])).stderr).toBe(
      'admin: no organization "nope"\n',
    );
    expect((await refused(['link', 'list', '--org', 'acme', '--group', '9'])).stderr).toBe(
      'admin: no URL group "9" in organization "acme"\n',
    );
  });

  it('refuses a command line that names no link or names it twice, with the usage', async () => {
    // Every such refusal is in link-command-line.test.ts; here the process's side of two.
    for (const [args, said] of [
      [['link', 'show'], 'name the link: --id N, or --domain HOST with --alias ALIAS'],
      [
        ['link', 'enable', '--id', '1', '--alias', 'a1'],
        'give either --id or --domain with --alias',
      ],
    ] as const) {
      const { stderr } = await refused([...args]);
      expect(stderr).toContain(`admin: ${said}`);
      expect(stderr).toContain('usage: npm run admin');
    }
  });

  it('refuses a seed file, the in-memory store and a DATA_DIR holding no store, creating nothing', async () => {
    const folder = await dirs.make();
    const seedFile = join(folder, 'seed.json');
    const missing = join(folder, 'data');
    const seedRefused = 'links live in the store only, never in a seed file';
    for (const [args, runEnv, said] of [
      [['link', 'show', '--id', '1', '--seed-file', seedFile], env, seedRefused],
      [['link', 'rescan', '--seed-file', seedFile], { DATA_DIR: missing }, seedRefused],
      [
        ['link', 'disable', '--id', '1', '--reason', 'kit', '--seed-file', seedFile],
        env,
        seedRefused,
      ],
      [
        ['link', 'list', '--org', 'acme'],
        { DATA_DIR: ':memory:' },
        'keeps nothing, links included',
      ],
      [
        ['link', 'enable', '--id', '1'],
        { DATA_DIR: missing },
        `DATA_DIR ${missing} holds no store: it has no links (nothing was created)`,
      ],
    ] as const) {
      expect((await refused([...args], runEnv)).stderr).toContain(said);
    }
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('admin link disable and enable', () => {
  it('disables with a reason by "admin", says so once, and enables again', async () => {
    expect(
      await admin('link', 'disable', '--domain', 'acme.link', '--alias', 'a1', '--reason', ' kit '),
    ).toBe('link 1 (https://acme.link/a1) is disabled: kit\n');
    const disabled = await show('--id', '1');
    expect(disabled).toMatchObject({
      state: 'disabled',
      disabled_reason: 'kit',
      disabled_by: 'admin',
    });
    const at = disabled.disabled_at as string;
    expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
    expect(Object.keys(disabled).slice(-4)).toEqual([
      'created_at',
      'disabled_reason',
      'disabled_at',
      'disabled_by',
    ]);

    // Again: the first reason stands, and the output says nothing changed.
    expect(await admin('link', 'disable', '--id', '1', '--reason', 'other')).toBe(
      `link 1 (https://acme.link/a1) was already disabled, since ${at} by admin: kit; nothing changed\n`,
    );
    expect(await show('--id', '1')).toMatchObject({ disabled_reason: 'kit', disabled_at: at });
    // A listing shows the state too.
    expect((await listed('--org', 'acme', '--group', '1')).map((link) => link)).toEqual([
      expect.objectContaining({ id: 3, state: 'active' }),
      expect.objectContaining({ id: 1, state: 'disabled', disabled_reason: 'kit' }),
    ]);

    expect(await admin('link', 'enable', '--id', '1')).toBe(
      'link 1 (https://acme.link/a1) is active again\n',
    );
    const enabled = await show('--id', '1');
    expect(enabled.state).toBe('active');
    expect(enabled).not.toHaveProperty('disabled_reason');
    expect(enabled).not.toHaveProperty('disabled_by');
    expect(await admin('link', 'enable', '--domain', 'acme.link', '--alias', 'a1')).toBe(
      'link 1 (https://acme.link/a1) was already active; nothing changed\n',
    );
  });

  it('refuses a missing, blank or too long reason and an unknown link, changing nothing', async () => {
    for (const args of [
      ['--id', '3'],
      ['--id', '3', '--reason', '   '],
    ]) {
      expect((await refused(['link', 'disable', ...args])).stderr).toContain(
        '--reason is required: say why the link is disabled.',
      );
    }
    expect(
      (await refused(['link', 'disable', '--id', '3', '--reason', 'x'.repeat(501)])).stderr,
    ).toContain('--reason must be at most 500 characters.');
    expect((await refused(['link', 'disable', '--id', '77', '--reason', 'kit'])).stderr).toBe(
      'admin: no link id 77\n',
    );
    expect((await refused(['link', 'enable', '--id', '77'])).stderr).toBe('admin: no link id 77\n');
    // 500 characters once trimmed are enough.
    const longest = 'y'.repeat(500);
    expect(await admin('link', 'disable', '--id', '3', '--reason', ` ${longest} `)).toContain(
      'is disabled',
    );
    expect((await show('--id', '3')).disabled_reason).toBe(longest);
    await admin('link', 'enable', '--id', '3');
  });
});

describe('admin link commands beside a running server', () => {
  it('stops and restarts following of a link within the propagation bound', async () => {
    const dataDir = join(await dirs.make(), 'data');
    const service = await startServer(dataDir);
    const serverEnv = { DATA_DIR: dataDir };
    const adminOn = async (...args: string[]) => {
      const run = await runAdmin(buildDir(), serverEnv, ...args);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      return run.stdout;
    };
    const key = shownOnce(
      await adminOn('org', 'create', '--id', 'gamma', '--domain', 'gamma.link'),
    );
    await adminOn('group', 'create', '--org', 'gamma', '--api-id', '1');
    await adminOn('user', 'create', '--id', 'gamma-user', '--org', 'gamma');
    const token = shownOnce(await adminOn('token', 'create', '--user', 'gamma-user'));
    const created = await createWithAlias(service.httpPort, token, key, 'live');
    expect(created.status).toBe(200);
    const follow = () =>
      sendRaw({
        port: service.httpPort,
        method: 'GET',
        path: '/live',
        headers: { Host: 'gamma.link', Accept: 'application/json' },
      });
    expect((await follow()).status).toBe(301);

    expect(
      await adminOn(
        'link',
        'disable',
        '--domain',
        'gamma.link',
        '--alias',
        'live',
        '--reason',
        'kit',
      ),
    ).toContain('is disabled: kit');
    await eventually(async () => (await follow()).status === 410, 'the link to be gone', 20_000);
    expect(JSON.parse((await follow()).text)).toMatchObject({ code: ErrorCode.LINK_DISABLED });
    await adminOn('link', 'enable', '--domain', 'gamma.link', '--alias', 'live');
    await eventually(async () => (await follow()).status === 301, 'the link to come back', 20_000);
    service.child.kill('SIGTERM');
    await service.exited;
    expect(existsSync(join(dataDir, 'rescan-checkpoint.json'))).toBe(false);
  });
});
