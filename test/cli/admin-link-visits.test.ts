import { join } from 'node:path';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { visitDayOf, visitDayText } from '../../core/ports/visit-store';
import { adminRefused, adminSucceeds } from '../support/admin-cli';
import { adminBesideServer } from '../support/admin-beside-server';
import { insertLink, provisionOrganization } from '../support/link-fixture';

jest.setTimeout(120_000);

const { dirs, buildDir } = adminBesideServer('admin-link-visits');
let env: Record<string, string>;

const admin = (...args: string[]) => adminSucceeds(buildDir(), env, ...args);

/** Runs `link visits` and the expected output for the UTC day it ran on (either side of midnight). */
async function visitsPrinted(args: string[], expected: (today: number) => string) {
  const before = visitDayOf(new Date());
  const output = await admin('link', 'visits', ...args);
  const after = visitDayOf(new Date());
  expect([expected(before), expected(after)]).toContain(output);
  return output;
}

beforeAll(async () => {
  const dataDir = join(await dirs.make(), 'data');
  env = { DATA_DIR: dataDir };
  const store = await createLmdbStore({ dataDir });
  try {
    await provisionOrganization(store, 'acme');
    const link = await insertLink(store, 'acme', 'a1', 'https://example.com/one');
    await insertLink(store, 'acme', 'quiet', 'https://example.com/quiet');
    const today = visitDayOf(new Date());
    // Written as the service's flushes write them: batches through the store's VisitStore. The
    // days are around the test's day; a day that passes midnight meanwhile moves them all one.
    const counts = [
      { linkId: link.id, day: today, humans: 3, bots: 1 },
      { linkId: link.id, day: today - 2, humans: 0, bots: 5 },
      { linkId: link.id, day: today - 40, humans: 7, bots: 0 },
    ];
    await store.visits.add({ process: 'test', seq: 1, counts: counts.slice(0, 2) });
    await store.visits.add({ process: 'test', seq: 2, counts: counts.slice(2) });
    await store.visits.add({ process: 'test', seq: 2, counts: counts.slice(2) }); // once only
  } finally {
    await store.close();
  }
});

describe('admin link visits (standard output not a terminal)', () => {
  it('prints the totals, then "YYYY-MM-DD humans bots" for each of the last --days days, oldest first', async () => {
    // Visits are written at the day of beforeAll: the expected days move with the run's day only
    // when midnight passes between the two, which the day arithmetic below does not follow.
    await visitsPrinted(['--id', '1', '--days', '3'], (today) =>
      [
        'link 1 (https://acme.link/a1): 16 visits, 10 humans, 6 bots',
        `${visitDayText(today - 2)} 0 5`,
        `${visitDayText(today - 1)} 0 0`,
        `${visitDayText(today)} 3 1`,
        '',
      ].join('\n'),
    );
  });

  it('reads 30 days by default, names the link by domain and alias, and prints zeros for a link never visited', async () => {
    const output = await visitsPrinted(['--domain', 'ACME.link', '--alias', 'a1'], (today) =>
      [
        'link 1 (https://acme.link/a1): 16 visits, 10 humans, 6 bots',
        ...Array.from({ length: 30 }, (_, index) => {
          const day = today - 29 + index;
          const counted = day === today ? '3 1' : day === today - 2 ? '0 5' : '0 0';
          return `${visitDayText(day)} ${counted}`;
        }),
        '',
      ].join('\n'),
    );
    expect(output).not.toMatch(/[█░]/);
    await visitsPrinted(
      ['--id', '2', '--days', '1'],
      (today) =>
        `link 2 (https://acme.link/quiet): 0 visits, 0 humans, 0 bots\n${visitDayText(today)} 0 0\n`,
    );
    // 400 days reach the visit 40 days ago.
    const long = await admin('link', 'visits', '--id', '1', '--days', '400');
    const lines = long.trimEnd().split('\n');
    expect(lines).toHaveLength(401);
    expect(lines.filter((line) => !line.endsWith(' 0 0')).slice(1)).toHaveLength(3);
  });

  it('refuses --days outside 1 to 400, an unknown link and a missing link name, with exit status 2', async () => {
    for (const days of ['0', '401', '1.5', 'x', '-3', '']) {
      const { stderr } = await adminRefused(
        buildDir(),
        env,
        'link',
        'visits',
        '--id',
        '1',
        `--days=${days}`, // as one word, so "-3" is read as the value
      );
      expect(stderr).toContain('admin: --days must be a whole number from 1 to 400');
    }
    expect((await adminRefused(buildDir(), env, 'link', 'visits', '--id', '9')).stderr).toBe(
      'admin: no link id 9\n',
    );
    expect((await adminRefused(buildDir(), env, 'link', 'visits')).stderr).toContain(
      'admin: name the link: --id N, or --domain HOST with --alias ALIAS',
    );
  });
});
