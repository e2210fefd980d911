import { parseArgs } from 'node:util';
import { messageOf } from '../errors/message-of';
import { ProvisioningError } from '../provisioning/provisioning-error';
import { commandUsage, USAGE } from './admin-usage';

export { USAGE };

/** Every option of every command, as node:util's parseArgs reads them. */
const OPTIONS = {
  id: { type: 'string' },
  name: { type: 'string' },
  domain: { type: 'string' },
  scheme: { type: 'string' },
  org: { type: 'string', multiple: true },
  'api-id': { type: 'string' },
  user: { type: 'string' },
  all: { type: 'boolean' },
  'seed-file': { type: 'string' },
  alias: { type: 'string' },
  reason: { type: 'string' },
  group: { type: 'string' },
  limit: { type: 'string' },
  checkpoint: { type: 'string' },
  url: { type: 'string' },
  'redirect-type': { type: 'string' },
  'expires-at': { type: 'string' },
  'max-visits': { type: 'string' },
  days: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type OptionName = keyof typeof OPTIONS;

/**
 * The options each command takes (--help aside, which every command takes); the ones it takes
 * more than once are listed in `repeatable`, any other given twice is refused rather than the
 * last one silently taken.
 */
const COMMANDS = {
  'org create': { options: ['id', 'domain', 'name', 'scheme', 'seed-file'] },
  'org activate': { options: ['id', 'seed-file'] },
  'org deactivate': { options: ['id', 'seed-file'] },
  'org rotate-key': { options: ['id', 'seed-file'] },
  'org list': { options: ['seed-file'] },
  'group create': { options: ['org', 'api-id', 'name', 'seed-file'] },
  'user create': { options: ['id', 'name', 'org', 'seed-file'], repeatable: ['org'] },
  'user list': { options: ['seed-file'] },
  'member add': { options: ['user', 'org', 'seed-file'] },
  'token create': { options: ['user', 'seed-file'] },
  // --seed-file is taken only to refuse it with the reason (admin.ts), not as an unknown option.
  'token revoke': { options: ['user', 'all', 'seed-file'] },
  backup: { options: [] },
  'db migrate': { options: [] },
  // Links live in the store only; --seed-file is taken to refuse it with the reason (admin.ts).
  'link show': { options: ['id', 'domain', 'alias', 'seed-file'] },
  'link list': { options: ['org', 'group', 'limit', 'seed-file'] },
  'link disable': { options: ['id', 'domain', 'alias', 'reason', 'seed-file'] },
  'link enable': { options: ['id', 'domain', 'alias', 'seed-file'] },
  'link update': {
    options: [
      'id',
      'domain',
      'alias',
      'url',
      'redirect-type',
      'expires-at',
      'max-visits',
      'seed-file',
    ],
  },
  'link history': { options: ['id', 'domain', 'alias', 'seed-file'] },
  'link visits': { options: ['id', 'domain', 'alias', 'days', 'seed-file'] },
  'link rescan': { options: ['org', 'checkpoint', 'seed-file'] },
} as const satisfies Record<
  string,
  { options: readonly OptionName[]; repeatable?: readonly OptionName[] }
>;
export type Command = keyof typeof COMMANDS;

/** The commands that read or govern links, in the store only (link-commands.ts). */
export type LinkCommand = Extract<Command, `link ${string}`>;

export const isLinkCommand = (command: string): command is LinkCommand =>
  command.startsWith('link ') && Object.hasOwn(COMMANDS, command);

/**
 * The commands that read or write identities (backup copies the store; the link commands work on
 * links).
 */
type AdminCommand = Exclude<Command, 'backup' | 'db migrate' | LinkCommand>;

/** The commands that only read: they write nothing, not even a seed file or a new store. */
export const LISTING_COMMANDS: ReadonlySet<AdminCommand> = new Set(['org list', 'user list']);

export const isAdminCommand = (command: string): command is AdminCommand =>
  command !== 'backup' &&
  command !== 'db migrate' &&
  !isLinkCommand(command) &&
  Object.hasOwn(COMMANDS, command);

/** A command's options: one value each, an array for the repeatable ones. */
export type Options = Record<string, string | string[] | boolean | undefined>;

type CommandLine =
  | { help: true; usage: string }
  | { help: false; command: 'backup'; target: string }
  | { help: false; command: 'db migrate' }
  | {
      help: false;
      command: AdminCommand | LinkCommand;
      options: Options;
      seedFile: string | undefined;
    };

/** A mistake on the command line: exit status 2, with the usage. */
export class UsageError extends ProvisioningError {
  /** The mistake alone, without the usage: what may repeat the command line's own text. */
  readonly problem: string;

  constructor(problem: string) {
    super(`${problem}\n\n${USAGE}`);
    this.problem = problem;
  }
}

export const usageError = (problem: string) => new UsageError(problem);

/**
 * A word of the command line as a refusal may repeat it: a command word is, anything else (a
 * token or key pasted in the wrong place, which must not reach a terminal log) is `…`.
 */
function repeatable(word: string | undefined): string {
  if (word === undefined) return '';
  return /^[a-z][a-z-]{0,31}$/.test(word) ? word : '…';
}

export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, tokens: true, options: OPTIONS });
  } catch (error) {
    // An unknown option or a missing value: node's message names it.
    throw usageError(messageOf(error));
  }
  const { values, positionals, tokens } = parsed;
  const [first, second, ...extra] = positionals;
  if (values.help) return { help: true, usage: usageOf(first, second) };
  if (first === undefined) throw usageError('no command given');
  const command = first === 'backup' ? first : `${first} ${second ?? ''}`.trim();
  if (!Object.hasOwn(COMMANDS, command)) {
    throw usageError(`unknown command "${[first, second].map(repeatable).join(' ').trim()}"`);
  }
  // Not repeated for token revoke: the argument is likely the token, which must not reach logs.
  if (extra.length > 0 && command === 'token revoke') {
    throw usageError('token revoke takes no argument: give the token on standard input');
  }
  if (extra.length > 0) {
    throw usageError(`unexpected argument "${extra.map(repeatable).join(' ')}"`);
  }
  checkOptionsOf(command as Command, tokens);

  if (command === 'backup') return { help: false, command, target: second ?? '' };
  if (command === 'db migrate') return { help: false, command };
  // --org is repeatable for "user create" and single elsewhere.
  const orgs = values.org;
  const options: Options = { ...values, org: command === 'user create' ? orgs : orgs?.[0] };
  return {
    help: false,
    command: command as AdminCommand | LinkCommand,
    options,
    seedFile: values['seed-file'],
  };
}

/**
 * What --help prints: the usage of the command named before it (`org create`, `backup`), of the
 * commands of its first word (`org`), or, with none, of every command.
 */
function usageOf(first: string | undefined, second: string | undefined): string {
  if (first === undefined) return USAGE;
  const words = first === 'backup' || second === undefined ? [first] : [first, second];
  const usage = commandUsage(words);
  if (usage === undefined) {
    throw usageError(`unknown command "${words.map(repeatable).join(' ')}"`);
  }
  return usage;
}

function checkOptionsOf(command: Command, tokens: ReturnType<typeof parseArgs>['tokens']) {
  const { options, ...rest } = COMMANDS[command];
  const taken: readonly string[] = options;
  const repeatable: readonly string[] = 'repeatable' in rest ? rest.repeatable : [];
  const seen = new Set<string>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option' || token.name === 'help') continue;
    if (!taken.includes(token.name)) {
      throw usageError(`"${command}" takes no --${token.name}`);
    }
    if (seen.has(token.name) && !repeatable.includes(token.name)) {
      throw usageError(`--${token.name} is given more than once; "${command}" takes one`);
    }
    seen.add(token.name);
  }
}
