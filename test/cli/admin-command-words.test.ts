import { parseCommandLine } from '../../core/cli/admin-command-line';

const SECRET = 'slpat_Pasted0In0The0Wrong0Place0000000000';

function refusal(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('admin CLI refusals repeat command words, never a pasted secret', () => {
  it.each([
    [['token', SECRET], 'unknown command "token …"'],
    [['revoke', SECRET], 'unknown command "revoke …"'],
    [[SECRET], 'unknown command "…"'],
    [['org', 'create', '--id', 'acme', '--domain', 'acme.link', SECRET], 'unexpected argument "…"'],
  ])('%j', (argv, expected) => {
    const message = refusal(argv);
    expect(message).toContain(expected);
    expect(message).not.toContain('slpat_');
  });

  it('still names a mistyped command word', () => {
    expect(refusal(['org', 'explode'])).toContain('unknown command "org explode"');
    expect(refusal(['frobnicate'])).toContain('unknown command "frobnicate"');
    expect(refusal(['member', 'add', '--user', 'a', '--org', 'b', 'extra'])).toContain(
      'unexpected argument "extra"',
    );
  });
});
