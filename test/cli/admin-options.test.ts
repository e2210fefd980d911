import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminSucceeds, runAdmin } from '../support/admin-cli';
import { compileToTemp, type TempBuild } from '../support/compile-to-temp';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const dirs = tempDirs('admin-options');
let build: TempBuild;
let seedFile: string;
let env: Record<string, string>;

/** The command line on this file's seed file (`--seed-file`), unless it names one itself. */
const onSeedFile = (args: string[]) =>
  args.includes('--seed-file') ? args : [...args, '--seed-file', seedFile];

/** Runs the CLI on this file's seed file and expects it to succeed. */
const admin = (...args: string[]) => adminSucceeds(build.dir, env, ...onSeedFile(args));

/** Runs the CLI and expects exit status 2, the usage, and the seed file left as it was. */
async function refused(...args: string[]): Promise<string> {
  const before = await readFile(seedFile, 'utf8');
  const run = await runAdmin(build.dir, env, ...onSeedFile(args));
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain('usage: npm run admin');
  expect(await readFile(seedFile, 'utf8')).toBe(before);
  return run.stderr;
}

beforeAll(async () => {
  build = await compileToTemp();
  seedFile = join(await dirs.make(), 'seed.json');
  env = { DATA_DIR: ':memory:' };
  await admin('org', 'create', '--id', 'a', '--domain', 'a.link');
  await admin('org', 'create', '--id', 'b', '--domain', 'b.link');
  await admin('user', 'create', '--id', 'bob');
});

afterAll(async () => {
  await build?.remove();
  await dirs.removeAll();
});

describe('admin CLI options', () => {
  it('refuses an option given twice where it takes one value, naming it', async () => {
    expect(await refused('member', 'add', '--user', 'bob', '--org', 'a', '--org', 'b')).toContain(
      '--org is given more than once; "member add" takes one',
    );
    expect(
      await refused('org', 'create', '--id', 'o2', '--id', 'o3', '--domain', 'o3.link'),
    ).toContain('--id is given more than once; "org create" takes one');
    expect(await refused('token', 'create', '--user', 'bob', '--user=bob')).toContain(
      '--user is given more than once',
    );
  });

  it('refuses an option that the command does not take, naming it', async () => {
    expect(await refused('token', 'create', '--user', 'bob', '--domain', 'x.link')).toContain(
      '"token create" takes no --domain',
    );
    expect(await refused('org', 'activate', '--id', 'a', '--scheme', 'http')).toContain(
      '"org activate" takes no --scheme',
    );
    expect(
      await refused('backup', join(await dirs.make(), 'copy'), '--seed-file', seedFile),
    ).toContain('"backup" takes no --seed-file');
  });

  it('still takes --org repeatedly for "user create", and --seed-file on every admin command', async () => {
    await admin('user', 'create', '--id', 'carol', '--org', 'a', '--org', 'b');
    const seed = JSON.parse(await readFile(seedFile, 'utf8')) as {
      users: Array<{ id: string; organizations: string[] }>;
    };
    expect(seed.users.find((user) => user.id === 'carol')?.organizations).toEqual(['a', 'b']);
    const other = join(await dirs.make(), 'other.json');
    const run = await runAdmin(
      build.dir,
      { DATA_DIR: ':memory:' },
      'user',
      'create',
      '--id',
      'dan',
      '--seed-file',
      other,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('prints the usage for --help or -h, with or without a command', async () => {
    for (const args of [['--help'], ['-h'], ['token', 'create', '--help']]) {
      expect(await adminSucceeds(build.dir, env, ...args)).toContain('usage: npm run admin');
    }
  });

  it("prints a command's own usage for <command> --help, and its word's for <word> --help", async () => {
    const tokenCreate = await adminSucceeds(build.dir, env, 'token', 'create', '--help');
    expect(tokenCreate).toMatch(
      /^usage: npm run admin -- token create\n\n {2}token create {2}--user USER_ID\n/,
    );
    expect(tokenCreate).not.toContain('org create');
    const link = await adminSucceeds(build.dir, env, 'link', '-h');
    expect(link).toMatch(
      /^usage: npm run admin -- link <show\|list\|disable\|enable\|update\|history\|visits\|rescan>\n/,
    );
    expect(link).not.toContain('token create');
    const refused = await runAdmin(build.dir, env, 'link', 'frobnicate', '--help');
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('unknown command "link frobnicate"');
  });
});
