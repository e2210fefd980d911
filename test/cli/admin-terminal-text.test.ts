import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { systemClock } from '../../core/adapters/system-clock';
import { Provisioner } from '../../core/provisioning/provisioner';
import { USAGE } from '../../core/cli/admin-command-line';
import { adminRefused, adminSucceeds } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { insertLink } from '../support/link-fixture';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

/**
 * Text a member may store (through gRPC, a seed file or a create) that a terminal would act on:
 * OSC 52 (writes the clipboard) ended by BEL, CR LF and a forged line, a right-to-left override,
 * an isolate, the bidi marks, a C1 CSI, DEL and the line separator.
 */
const HOSTILE =
  'ok\x1b]52;c;ZWNobyBwd25lZA==\x07\r\nlink 1 (https://acme.link/a) is active again' +
  '\u202eexe.txt\u202c \u2066x\u2069 \u200e\u200f\u061c \u009b2J \x7f \u2028end';

/** Any character a terminal acts on, but the LF that ends each line the CLI prints. */
const ACTED_ON =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const dirs = tempDirs('admin-terminal-text');
let build: TempBuild | undefined;
let env: Record<string, string>;

const buildDir = () => {
  if (!build) throw new Error('built in beforeAll');
  return build.dir;
};
const admin = (...args: string[]) => adminSucceeds(buildDir(), env, ...args);

/** The lines printed, each checked to hold nothing a terminal acts on. */
function safeLines(output: string): string[] {
  expect(output).not.toMatch(ACTED_ON);
  expect(output.endsWith('\n')).toBe(true);
  return output.slice(0, -1).split('\n');
}

beforeAll(async () => {
  build = await compileToTemp();
  const dataDir = join(await dirs.make(), 'data');
  env = { DATA_DIR: dataDir };
  const store = await createLmdbStore({ dataDir });
  try {
    const provisioner = new Provisioner(store, systemClock);
    await provisioner.createOrganization({ id: 'acme', domain: 'acme.link', name: HOSTILE });
    await provisioner.createGroup({ organizationId: 'acme', apiId: '1', name: HOSTILE });
    await provisioner.createUser({ id: 'acme-user', name: HOSTILE, organizations: ['acme'] });
    const link = await insertLink(store, 'acme', 'a', `https://example.com/${HOSTILE}`);
    const at = new Date();
    await store.links.setDisabled(
      link.id,
      { reason: HOSTILE, at, by: 'user:acme-user' },
      { at, by: 'user:acme-user', refuseHeld: true },
    );
  } finally {
    await store.close();
  }
});
afterAll(async () => {
  await build?.remove();
  await dirs.removeAll();
});

describe('the admin CLI prints stored text escaped', () => {
  it('lists organizations, groups and users as JSON that escapes bidi and C1 too, and reads back', async () => {
    const [organization, ...moreOrganizations] = safeLines(await admin('org', 'list'));
    expect(moreOrganizations).toEqual([]);
    expect(organization).toContain('\\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\r\\n');
    expect(organization).toContain('\\u202eexe.txt\\u202c \\u2066x\\u2069 \\u200e\\u200f\\u061c');
    expect(organization).toContain('\\u009b2J \\u007f \\u2028end');
    expect(JSON.parse(organization!)).toMatchObject({
      id: 'acme',
      name: HOSTILE,
      groups: [{ apiId: '1', name: HOSTILE }],
    });
    const [user, ...moreUsers] = safeLines(await admin('user', 'list'));
    expect(moreUsers).toEqual([]);
    expect(JSON.parse(user!)).toMatchObject({ id: 'acme-user', name: HOSTILE });
  });

  it('shows and lists a link with its URL and disable reason escaped, as JSON that reads back', async () => {
    for (const output of [
      await admin('link', 'show', '--id', '1'),
      await admin('link', 'list', '--org', 'acme'),
    ]) {
      const [line, ...more] = safeLines(output);
      expect(more).toEqual([]);
      expect(JSON.parse(line!)).toMatchObject({
        url: `https://example.com/${HOSTILE}`,
        disabled_reason: HOSTILE,
      });
    }
  });

  it('says a stored reason on one line, its controls and bidi characters shown as escapes', async () => {
    const output = await admin('link', 'disable', '--id', '1', '--reason', 'again');
    expect(safeLines(output)).toEqual([
      expect.stringMatching(/^link 1 \(https:\/\/acme\.link\/a\) was already disabled, since /),
    ]);
    expect(output).toContain(
      'by user:acme-user: ok\\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\u000d\\u000alink 1 (https://acme.link/a) is active again\\u202eexe.txt\\u202c \\u2066x\\u2069 \\u200e\\u200f\\u061c \\u009b2J \\u007f \\u2028end; nothing changed\n',
    );
  });

  it('escapes what a refusal repeats, and still prints the usage after a mistake on the command line', async () => {
    const unknown = await adminRefused(buildDir(), env, 'link', 'list', '--org', HOSTILE);
    expect(safeLines(unknown.stderr)).toEqual([
      expect.stringMatching(/^admin: no organization "ok\\u001b\]52;c;.*\\u2028end"$/),
    ]);
    const noLink = await adminRefused(
      buildDir(),
      env,
      'link',
      'show',
      '--domain',
      'acme.link',
      '--alias',
      HOSTILE,
    );
    expect(safeLines(noLink.stderr)).toHaveLength(1);
    const usage = await adminRefused(buildDir(), env, 'link', 'show', `--\x1b]52;c;eA\x07`);
    expect(usage.stderr).not.toMatch(ACTED_ON);
    expect(usage.stderr).toContain("Unknown option '--\\u001b]52;c;eA\\u0007'");
    expect(usage.stderr.endsWith(`\n\n${USAGE}\n`)).toBe(true);
  });
});
