import { parseCommandLine, USAGE } from '../../core/cli/admin-command-line';
import { openLinkStore } from '../../core/cli/admin-store';
import { linkCommand } from '../../core/cli/link-commands';
import { ProvisioningError } from '../../core/provisioning/provisioning-error';
import { loadConfig } from '../../core/runtime/config';

/** What the CLI says of a command line it refuses before opening any store. */
function refusal(argv: string[]): string {
  try {
    const line = parseCommandLine(argv);
    if (line.help || line.command === 'backup' || line.command === 'db migrate') {
      throw new Error('not a link command');
    }
    if (line.command === 'link rescan') throw new Error('rescan reads its options later');
    linkCommand(line.command as Parameters<typeof linkCommand>[0], line.options);
  } catch (error) {
    expect(error).toBeInstanceOf(ProvisioningError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('link commands: the command line', () => {
  it.each([
    [['link', 'show'], 'name the link: --id N, or --domain HOST with --alias ALIAS'],
    [['link', 'show', '--domain', 'acme.link'], 'name the link'],
    [['link', 'show', '--alias', 'a1'], 'name the link'],
    [['link', 'show', '--id', '1', '--domain', 'acme.link'], 'give either --id or --domain'],
    [['link', 'disable', '--id', '1', '--alias', 'a1', '--reason', 'x'], 'not both'],
    [['link', 'enable', '--id', '1', '--domain', 'a.link', '--alias', 'a'], 'not both'],
    [['link', 'show', '--id', '0'], '--id must be a link id: a positive whole number'],
    [['link', 'show', '--id', '1.5'], '--id must be a link id'],
    [['link', 'show', '--id', '99999999999999999'], '--id must be a link id'],
    [['link', 'show', '--domain', 'http://acme.link/', '--alias', 'a'], '--domain must be a link'],
    [['link', 'show', '--domain', 'acme.link', '--alias', ''], '--alias must not be empty'],
    [['link', 'disable', '--id', '1'], '--reason is required: say why the link is disabled.'],
    [['link', 'disable', '--id', '1', '--reason', ' \t '], '--reason is required'],
    [['link', 'disable', '--id', '1', '--reason', 'x'.repeat(501)], 'at most 500 characters'],
    [['link', 'list'], '--org is required'],
    [['link', 'list', '--org', 'a', '--limit', '0'], '--limit must be a positive whole number'],
    [['link', 'list', '--org', 'a', '--limit', 'all'], '--limit must be'],
    [['link', 'show', '--id', '1', '--reason', 'x'], '"link show" takes no --reason'],
    [['link', 'enable', '--id', '1', '--reason', 'x'], '"link enable" takes no --reason'],
    [['link', 'list', '--org', 'a', '--org', 'b'], '--org is given more than once'],
    [['link', 'rescan', '--group', '1'], '"link rescan" takes no --group'],
    [['link', 'delete', '--id', '1'], 'unknown command "link delete"'],
  ])('%j: %s', (argv, said) => {
    expect(refusal(argv)).toContain(said);
  });

  it('takes a reason of 500 characters once trimmed, and an id up to the largest safe integer', () => {
    const line = parseCommandLine([
      'link',
      'disable',
      '--id',
      '9007199254740991',
      '--reason',
      ` ${'y'.repeat(500)} `,
    ]);
    if (line.help || line.command !== 'link disable') throw new Error('not parsed');
    expect(() => linkCommand('link disable', line.options)).not.toThrow();
  });

  it('lists every link command in the usage', () => {
    for (const command of ['show', 'list', 'disable', 'enable', 'rescan']) {
      expect(USAGE).toContain(`  link ${command} `);
    }
  });

  it('opens no seed file, no in-memory store and no new LMDB store for links', async () => {
    const config = loadConfig({ DATA_DIR: '/nonexistent/shortlink-data' });
    for (const readOnly of [true, false]) {
      await expect(openLinkStore(config, '/tmp/seed.json', { readOnly })).rejects.toThrow(
        'links live in the store only, never in a seed file',
      );
      await expect(
        openLinkStore(loadConfig({ DATA_DIR: ':memory:' }), undefined, { readOnly }),
      ).rejects.toThrow('DATA_DIR=:memory: keeps nothing, links included');
      await expect(openLinkStore(config, undefined, { readOnly })).rejects.toThrow(
        'DATA_DIR /nonexistent/shortlink-data holds no store: it has no links (nothing was created)',
      );
    }
  });
});
