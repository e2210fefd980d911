import { parseCommandLine, USAGE, UsageError } from '../../core/cli/admin-command-line';

/** What `npm run admin -- <words> --help` prints. */
function help(...words: string[]): string {
  const line = parseCommandLine([...words, '--help']);
  if (!line.help) throw new Error(`${words.join(' ')} --help was not read as --help`);
  return line.usage;
}

/** The lines of the full usage that describe `command`: its forms, their continuation lines. */
function linesOfUsage(command: string): string[] {
  const continuation = ' '.repeat(16);
  let owned = false;
  return USAGE.split('\n').filter((line) => {
    if (!line.startsWith(continuation)) owned = line.startsWith(`  ${command} `);
    return owned;
  });
}

describe('admin --help', () => {
  it('prints every command with no command before it', () => {
    expect(help()).toBe(USAGE);
    expect(parseCommandLine(['-h'])).toEqual({ help: true, usage: USAGE });
  });

  it.each(['org create', 'token revoke', 'link update', 'link rescan', 'backup'])(
    'prints only the usage of %s, as the full usage gives it',
    (command) => {
      const words = command.split(' ');
      const usage = help(...words);
      const own = linesOfUsage(command);
      expect(own.length).toBeGreaterThan(0);
      expect(usage).toBe(
        `usage: npm run admin -- ${command}\n\n${own.join('\n')}\n\nEvery command: npm run admin -- --help; more in core/cli/README.md.`,
      );
    },
  );

  it('prints the commands of one word for <word> --help', () => {
    const org = help('org');
    expect(org).toMatch(
      /^usage: npm run admin -- org <create\|activate\|deactivate\|rotate-key\|list>\n/,
    );
    for (const command of [
      'org create',
      'org activate',
      'org deactivate',
      'org rotate-key',
      'org list',
    ]) {
      for (const line of linesOfUsage(command)) expect(org).toContain(line);
    }
    expect(org).not.toContain('group create');
    expect(help('user')).toContain('  user list ');
    expect(help('user')).not.toContain('org list');
  });

  it('refuses --help after words that name no command, as without --help', () => {
    for (const [words, named] of [
      [['frobnicate'], 'frobnicate'],
      [['org', 'frobnicate'], 'org frobnicate'],
      [['slpat_secret'], '…'],
    ] as const) {
      expect(() => help(...words)).toThrow(UsageError);
      expect(() => help(...words)).toThrow(`unknown command "${named}"`);
    }
  });
});
