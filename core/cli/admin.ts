import { parseArgs } from 'node:util';
import { messageOf } from '../errors/message-of';
import type { Provisioner } from '../provisioning/provisioner';
import { ProvisioningError } from '../provisioning/provisioner';
import { loadConfig } from '../runtime/config';
import { openAdminTarget } from './admin-store';
import { runBackup } from './backup';

const USAGE = `usage: npm run admin -- <command> [options]

  org create    --id ID --domain HOST[:PORT] [--name NAME] [--scheme https|http]
  org activate  --id ID
  org deactivate --id ID
  group create  --org ORG_ID --api-id API_ID [--name NAME]
  user create   --id ID [--name NAME] [--org ORG_ID ...]
  member add    --user USER_ID --org ORG_ID
  token create  --user USER_ID
  backup        DIR      (LMDB only: a consistent copy of DATA_DIR into DIR, missing or empty)

Works on MongoDB when MONGODB_URI is set; else on the seed file named by SHORTLINK_SEED_FILE (or
--seed-file), created or rewritten (atomically, under a lock, mode 0600) with secrets as SHA-256 hashes only;
else on the LMDB store in DATA_DIR (default ./data). Every command may run while the server runs.
Each new secret is printed once; it cannot be shown again.`;

type Options = Record<string, string | string[] | boolean | undefined>;

/** The commands that write identities (backup, the one other, copies the store). */
const ADMIN_COMMANDS = [
  'org create',
  'org activate',
  'org deactivate',
  'group create',
  'user create',
  'member add',
  'token create',
] as const;
type AdminCommand = (typeof ADMIN_COMMANDS)[number];

const isAdminCommand = (command: string): command is AdminCommand =>
  (ADMIN_COMMANDS as readonly string[]).includes(command);

/** A mistake on the command line: exit status 2, with the usage. */
const usageError = (problem: string) => new ProvisioningError(`${problem}\n\n${USAGE}`);

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ProvisioningError(`--${name} is required`);
  }
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** Runs one admin command and returns the lines to print. */
export async function runAdminCommand(
  provisioner: Provisioner,
  command: string,
  options: Options,
): Promise<string[]> {
  if (!isAdminCommand(command)) throw usageError(`unknown command "${command}"`);
  switch (command) {
    case 'org create': {
      const scheme = optional(options, 'scheme') ?? 'https';
      if (scheme !== 'https' && scheme !== 'http') {
        throw new ProvisioningError('--scheme must be https or http');
      }
      const name = optional(options, 'name');
      const { organization, secretKey } = await provisioner.createOrganization({
        id: required(options, 'id'),
        domain: required(options, 'domain'),
        scheme,
        ...(name !== undefined && { name }),
      });
      return [
        `organization ${organization.id} (link domain ${organization.scheme}://${organization.domain})`,
        `organization secret key (shown once): ${secretKey ?? ''}`,
      ];
    }
    case 'org activate':
    case 'org deactivate': {
      const active = command === 'org activate';
      const organization = await provisioner.setOrganizationActive(required(options, 'id'), active);
      return [`organization ${organization.id} is ${active ? 'active' : 'inactive'}`];
    }
    case 'group create': {
      const name = optional(options, 'name');
      const group = await provisioner.createGroup({
        organizationId: required(options, 'org'),
        apiId: required(options, 'api-id'),
        ...(name !== undefined && { name }),
      });
      return [`group ${group.apiId} in organization ${group.organizationId}`];
    }
    case 'user create': {
      const name = optional(options, 'name');
      const orgs = options.org;
      const user = await provisioner.createUser({
        id: required(options, 'id'),
        ...(name !== undefined && { name }),
        organizations: Array.isArray(orgs) ? orgs : [],
      });
      return [`user ${user.id}`];
    }
    case 'member add': {
      const userId = required(options, 'user');
      const organizationId = required(options, 'org');
      await provisioner.addMember(userId, organizationId);
      return [`user ${userId} is a member of ${organizationId}`];
    }
    case 'token create': {
      const userId = required(options, 'user');
      const { token } = await provisioner.issueToken(userId);
      return [`personal access token for ${userId} (shown once): ${token ?? ''}`];
    }
    default: {
      const unhandled: never = command;
      throw usageError(`unknown command "${String(unhandled)}"`);
    }
  }
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        id: { type: 'string' },
        name: { type: 'string' },
        domain: { type: 'string' },
        scheme: { type: 'string' },
        org: { type: 'string', multiple: true },
        'api-id': { type: 'string' },
        user: { type: 'string' },
        'seed-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // An unknown option or a missing value: node's message names it.
    throw usageError(messageOf(error));
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv);
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const [first, second, ...extra] = positionals;
  if (first === undefined) throw usageError('no command given');
  const command = first === 'backup' ? first : `${first} ${second ?? ''}`.trim();
  if (command !== 'backup' && !isAdminCommand(command)) {
    throw usageError(`unknown command "${command}"`);
  }
  if (extra.length > 0) throw usageError(`unexpected argument "${extra.join(' ')}"`);
  const config = loadConfig();
  if (command === 'backup') {
    process.stdout.write((await runBackup(config, second ?? '')) + '\n');
    return;
  }
  // --org is repeatable for "user create" and single elsewhere.
  const options: Options = { ...values };
  const orgs = values.org ?? [];
  if (command !== 'user create') options.org = orgs[orgs.length - 1];

  const target = await openAdminTarget(config, values['seed-file'] ?? config.SHORTLINK_SEED_FILE);
  try {
    const lines = await runAdminCommand(target.provisioner, command, options);
    const saved = await target.save();
    if (saved) lines.push(saved);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await target.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`admin: ${message}\n`);
    process.exit(error instanceof ProvisioningError ? 2 : 1);
  });
}
