import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCore, Provisioner, systemClock, type Store } from '../../core';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { adminRefused, adminSucceeds } from '../support/admin-cli';
import { adminBesideServer } from '../support/admin-beside-server';
import { failureOf } from '../support/failures';
import { insertLink } from '../support/link-fixture';

jest.setTimeout(120_000);

const { dirs, buildDir } = adminBesideServer('admin-link-edits');
let env: Record<string, string>;
let dataDir: string;
let organizationKey: string;
let token: string;

const admin = (...args: string[]) => adminSucceeds(buildDir(), env, ...args);
const refused = (...args: string[]) => adminRefused(buildDir(), env, ...args);
/** The CLI's history with each line's time replaced by `T`, one line each. */
const historyOf = async (...args: string[]) =>
  (await admin('link', 'history', ...args))
    .replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm, 'T ')
    .split('\n')
    .filter((line) => line !== '');

beforeAll(async () => {
  const dir = await dirs.make();
  dataDir = join(dir, 'data');
  const blocklist = join(dir, 'blocklist.txt');
  await writeFile(blocklist, 'evil.example\n');
  env = { DATA_DIR: dataDir, URL_BLOCKLIST_FILE: blocklist };
  const store = await createLmdbStore({ dataDir });
  try {
    const provisioner = new Provisioner(store, systemClock);
    organizationKey = (await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' }))
      .secretKey!;
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
    await provisioner.saveUser({ id: 'acme-user', organizations: ['acme'] });
    token = (await provisioner.issueToken('acme-user')).token!;
    await insertLink(store, 'acme', 'a1', 'https://example.com/one');
    await insertLink(store, 'acme', 'a2', 'https://example.com/two');
  } finally {
    await store.close();
  }
});

/** A member's caller on the CLI's store, opened in this process beside it. */
async function withMember<T>(
  use: (caller: ReturnType<ReturnType<typeof createCore>['createCaller']>) => Promise<T>,
): Promise<T> {
  const store: Store = await createLmdbStore({ dataDir });
  try {
    return await use(createCore({ store }).createCaller({ authorization: `Bearer ${token}` }));
  } finally {
    await store.close();
  }
}

describe('admin link update and history', () => {
  it('updates the fields given, says what changed, and nothing when nothing does', async () => {
    // A month ahead, whole seconds, given with a numeric offset.
    const expiry = new Date(Math.floor(Date.now() / 1000) * 1000 + 30 * 86_400_000).toISOString();
    expect(
      await admin(
        'link',
        'update',
        '--id',
        '1',
        '--url',
        'https://example.org/new',
        '--max-visits',
        '5',
      ),
    ).toBe(
      'link 1 (https://acme.link/a1) is updated: url https://example.com/one → https://example.org/new, max_visits none → 5\n',
    );
    expect(
      await admin('link', 'update', '--domain', 'acme.link', '--alias', 'a1', '--max-visits', '5'),
    ).toBe('link 1 (https://acme.link/a1) already has this value; nothing changed\n');
    expect(
      await admin(
        'link',
        'update',
        '--id',
        '1',
        '--max-visits',
        'none',
        '--expires-at',
        expiry.replace('.000Z', '+00:00'),
        '--redirect-type',
        '308',
      ),
    ).toBe(
      `link 1 (https://acme.link/a1) is updated: redirect_type 301 → 308, expires_at none → ${expiry}, max_visits 5 → none\n`,
    );
    expect(await historyOf('--id', '1')).toEqual([
      'T created by user:acme-user',
      'T updated by admin: url https://example.com/one → https://example.org/new, max_visits none → 5',
      `T updated by admin: redirect_type 301 → 308, expires_at none → ${expiry}, max_visits 5 → none`,
    ]);
  });

  it('refuses bad values, a blocked url and a command line without a field with exit status 2, changing nothing', async () => {
    const blocked = await refused('link', 'update', '--id', '1', '--url', 'https://evil.example/x');
    expect(blocked.stderr).toMatch(/^admin: The URL was refused: /);
    for (const [option, value] of [
      ['--max-visits', '0'],
      ['--max-visits', 'lots'],
      ['--redirect-type', '300'],
      ['--expires-at', '2020-01-01T00:00:00Z'],
      ['--expires-at', '2099-01-01'],
      ['--url', 'ftp://example.com/'],
    ] as const) {
      const run = await refused('link', 'update', '--id', '1', option, value);
      expect(run.stderr).not.toBe('');
    }
    expect((await refused('link', 'update', '--id', '1')).stderr).toMatch(
      /give at least one of --url, --redirect-type, --expires-at, --max-visits/,
    );
    expect((await refused('link', 'update', '--id', '9', '--max-visits', '2')).stderr).toBe(
      'admin: no link id 9\n',
    );
    expect((await refused('link', 'history', '--id', '9')).stderr).toBe('admin: no link id 9\n');
    expect(await historyOf('--id', '1')).toHaveLength(3);
  });

  it('holds an operator’s takedown against members; the operator edits and lifts it; the history keeps its reason', async () => {
    await admin('link', 'disable', '--id', '2', '--reason', 'phishing kit, ticket 881');
    await withMember(async (member) => {
      const ref = { organization_key: organizationKey, id: 2 };
      expect((await failureOf(member.links.update({ ...ref, max_visits: 3 }))).reason).toBe(
        'LINK_HELD',
      );
      expect((await failureOf(member.links.enable(ref))).reason).toBe('LINK_HELD');
    });
    // The operator's edit is never held, and leaves the takedown in place.
    expect(await admin('link', 'update', '--id', '2', '--url', 'https://example.org/fixed')).toBe(
      'link 2 (https://acme.link/a2) is updated: url https://example.com/two → https://example.org/fixed\n',
    );
    expect(JSON.parse(await admin('link', 'show', '--id', '2'))).toMatchObject({
      state: 'disabled',
      disabled_by: 'admin',
    });
    await admin('link', 'enable', '--id', '2');
    await withMember(async (member) => {
      const edited = await member.links.update({
        organization_key: organizationKey,
        id: 2,
        max_visits: 3,
      });
      expect(edited).toMatchObject({ state: 'active', max_visits: 3 });
    });
    expect(await historyOf('--domain', 'acme.link', '--alias', 'a2')).toEqual([
      'T created by user:acme-user',
      'T disabled by admin: phishing kit, ticket 881',
      'T updated by admin: url https://example.com/two → https://example.org/fixed',
      'T enabled by admin',
      'T updated by user:acme-user: max_visits none → 3',
    ]);
  });
});
