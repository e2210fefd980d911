import type { Command } from './admin-command-line';

/**
 * What each command takes, as the usage prints it: one or more forms (two for `token revoke`),
 * each a line and its continuation lines. In the order of the full usage.
 */
const COMMAND_FORMS = {
  'org create': [['--id ID --domain HOST[:PORT] [--name NAME] [--scheme https|http]']],
  'org activate': [['--id ID']],
  'org deactivate': [['--id ID']],
  'org rotate-key': [['--id ID   (a new secret key, printed once; the old one stops working)']],
  'org list': [['(one JSON object per line: id, name, link domain, active, groups)']],
  'group create': [['--org ORG_ID --api-id API_ID [--name NAME]']],
  'user create': [['--id ID [--name NAME] [--org ORG_ID ...]']],
  'user list': [['(one JSON object per line: id, name, organizations, token count)']],
  'member add': [['--user USER_ID --org ORG_ID']],
  'token create': [['--user USER_ID']],
  'token revoke': [
    ['(reads ONE token from standard input: never give it as an argument)'],
    ['--user USER_ID --all  (every token of the user)'],
  ],
  backup: [['DIR      (LMDB only: a consistent copy of DATA_DIR into DIR, missing or empty)']],
  'db migrate': [['(MongoDB only: creates the indexes the server needs that are missing)']],
  'link show': [['--domain HOST --alias ALIAS | --id N   (the link as one JSON object)']],
  'link list': [
    ['--org ORG_ID [--group API_ID] [--limit N]   (one JSON object per line, newest first)'],
  ],
  'link disable': [['--domain HOST --alias ALIAS | --id N  --reason TEXT   (1-500 characters)']],
  'link enable': [['--domain HOST --alias ALIAS | --id N']],
  'link update': [
    [
      '--domain HOST --alias ALIAS | --id N  [--url URL] [--redirect-type 301|302|303|307|308]',
      '[--expires-at RFC3339|none] [--max-visits N|none]   (at least one; by admin)',
    ],
  ],
  'link history': [['--domain HOST --alias ALIAS | --id N   (one line per change, oldest first)']],
  'link visits': [
    [
      '--domain HOST --alias ALIAS | --id N  [--days N]   (totals, and the last N UTC days,',
      '1-400, default 30: a chart on a terminal, else "YYYY-MM-DD humans bots" lines)',
    ],
  ],
  'link rescan': [
    [
      '[--org ORG_ID] [--checkpoint FILE]   (active links through the URL guard again;',
      'disables each one it now refuses; resumable: see core/cli/README.md)',
    ],
  ],
} as const satisfies Record<Command, ReadonlyArray<readonly string[]>>;

/** The closing paragraph of the full usage. */
const ABOUT_THE_STORE = `Works on the store the server uses: MongoDB when MONGODB_URI is set, else the LMDB store in DATA_DIR
(default ./data), whatever SHORTLINK_SEED_FILE says; a running server sees a change within
CHANGE_PROPAGATION_SECONDS. On a seed file only with --seed-file PATH, created or rewritten
(atomically, under a lock, mode 0600) with secrets as SHA-256 hashes only. Each new secret is
printed once; it cannot be shown again. token revoke and the link commands work on the store only,
never on a seed file.`;

/** A command's lines in the usage: its name in a column of 14, continuation lines under the text. */
function formLines(command: Command): string[] {
  return COMMAND_FORMS[command].flatMap(([first, ...continued]) => [
    `  ${command.padEnd(13)} ${first}`,
    ...continued.map((line) => `${' '.repeat(16)}${line}`),
  ]);
}

const COMMANDS_IN_ORDER = Object.keys(COMMAND_FORMS) as Command[];

export const USAGE = `usage: npm run admin -- <command> [options]

${COMMANDS_IN_ORDER.flatMap(formLines).join('\n')}

${ABOUT_THE_STORE}`;

/**
 * The usage of one command (`org create`), or of the commands of one word (`org`): what
 * `admin <command> --help` prints. undefined for words that name no command.
 */
export function commandUsage(words: readonly string[]): string | undefined {
  const named = words.join(' ');
  const commands = COMMANDS_IN_ORDER.filter(
    (command) => command === named || (words.length === 1 && command.startsWith(`${named} `)),
  );
  if (commands.length === 0) return undefined;
  const subcommands = commands.map((command) => command.slice(named.length + 1));
  const synopsis = commands.length === 1 ? named : `${named} <${subcommands.join('|')}>`;
  return `usage: npm run admin -- ${synopsis}

${commands.flatMap(formLines).join('\n')}

Every command: npm run admin -- --help; more in core/cli/README.md.`;
}
