import type { Provisioner } from '../provisioning/provisioner';
import { isLinkScheme } from '../provisioning/link-domain';
import { ProvisioningError } from '../provisioning/provisioning-error';
import { loadConfig } from '../runtime/config';
import {
  isAdminCommand,
  isLinkCommand,
  LISTING_COMMANDS,
  parseCommandLine,
  usageError,
  UsageError,
  USAGE,
  type Options,
} from './admin-command-line';
import { runLinkCommandLine } from './admin-links';
import { openAdminReader, openAdminTarget, targetsSeedFile, type AdminTarget } from './admin-store';
import { rotatedInSeedFile, rotatedInStore } from './key-rotation';
import { seedFileActiveNote } from './server-seed-file-note';
import { runBackup } from './backup';
import { runDbMigrate } from './db-migrate';
import { terminalText } from './terminal-text';
import { readTokenInput, tokenFromInput } from './token-input';
import { REVOKE_ON_SEED_FILE_REFUSED, revokesByUser, seedFileStillLists } from './token-revoke';

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

/**
 * Runs one admin command and returns the lines to print. `standardInput` is what the command
 * read from standard input, for `token revoke` (read once by the caller: the command may run
 * twice, first on an empty store).
 */
export async function runAdminCommand(
  provisioner: Provisioner,
  command: string,
  options: Options,
  standardInput = '',
): Promise<string[]> {
  if (!isAdminCommand(command)) throw usageError(`unknown command "${command}"`);
  switch (command) {
    case 'org create': {
      const scheme = optional(options, 'scheme') ?? 'https';
      if (!isLinkScheme(scheme)) {
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
    case 'org rotate-key': {
      const { organization, secretKey } = await provisioner.rotateOrganizationKey(
        required(options, 'id'),
      );
      return [
        `organization ${organization.id}: a new secret key`,
        `organization secret key (shown once): ${secretKey}`,
      ];
    }
    case 'org activate':
    case 'org deactivate': {
      const active = command === 'org activate';
      const organization = await provisioner.setOrganizationActive(required(options, 'id'), active);
      return [`organization ${organization.id} is ${active ? 'active' : 'inactive'}`];
    }
    case 'org list':
      return (await provisioner.listOrganizations()).map((listing) => JSON.stringify(listing));
    case 'user list':
      return (await provisioner.listUsers()).map((listing) => JSON.stringify(listing));
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
    case 'token revoke': {
      if (revokesByUser(options)) {
        const userId = required(options, 'user');
        const count = await provisioner.revokeTokensOfUser(userId);
        return [`revoked ${count} ${count === 1 ? 'token' : 'tokens'} of user ${userId}`];
      }
      const { userId } = await provisioner.revokeToken(tokenFromInput(standardInput));
      return [`revoked a token of user ${userId}`];
    }
    default: {
      const unhandled: never = command;
      throw usageError(`unknown command "${String(unhandled)}"`);
    }
  }
}

/**
 * Where a rotated key takes effect, and what a seed file needs then (key-rotation.ts);
 * `targetSeedFile` is the seed file the command wrote, if it wrote one.
 */
async function rotationNote(
  target: AdminTarget,
  organizationId: string,
  targetSeedFile: string | undefined,
): Promise<string> {
  if (targetSeedFile !== undefined) return rotatedInSeedFile(targetSeedFile);
  const organization = await target.store.identities.findOrganizationById(organizationId);
  return rotatedInStore(organizationId, organization?.keyHash ?? '');
}

async function main(argv: string[]): Promise<void> {
  const commandLine = parseCommandLine(argv);
  if (commandLine.help) {
    process.stdout.write(commandLine.usage + '\n');
    return;
  }
  const config = loadConfig();
  if (commandLine.command === 'backup') {
    process.stdout.write(terminalText(await runBackup(config, commandLine.target)) + '\n');
    return;
  }
  if (commandLine.command === 'db migrate') {
    process.stdout.write((await runDbMigrate(config)).map(terminalText).join('\n') + '\n');
    return;
  }
  // Only --seed-file makes a seed file the target; SHORTLINK_SEED_FILE names the server's, which
  // the notes below consult (admin-store.ts, targetsSeedFile).
  const seedFile = commandLine.seedFile;
  const serverSeedFile = config.SHORTLINK_SEED_FILE;
  if (isLinkCommand(commandLine.command)) {
    await runLinkCommandLine(config, seedFile, commandLine.command, commandLine.options);
    return;
  }
  const adminCommand = commandLine.command;
  let standardInput = '';
  if (adminCommand === 'token revoke') {
    // Refused before standard input is read: a mistake costs no waiting for input.
    if (targetsSeedFile(seedFile)) throw new ProvisioningError(REVOKE_ON_SEED_FILE_REFUSED);
    if (!revokesByUser(commandLine.options)) {
      if (process.stdin.isTTY) {
        process.stderr.write('admin: the token to revoke, then Enter and Ctrl-D:\n');
      }
      standardInput = await readTokenInput(process.stdin);
    }
  }
  const command = (provisioner: Provisioner) =>
    runAdminCommand(provisioner, adminCommand, commandLine.options, standardInput);
  const target = LISTING_COMMANDS.has(adminCommand)
    ? await openAdminReader(config, seedFile)
    : await openAdminTarget(config, seedFile, command);
  try {
    const lines = await command(target.provisioner);
    const saved = await target.save();
    if (saved) lines.push(saved);
    if (adminCommand === 'token revoke' && serverSeedFile) {
      lines.push(seedFileStillLists(serverSeedFile));
    }
    if (adminCommand === 'org rotate-key') {
      const organizationId = required(commandLine.options, 'id');
      lines.push(await rotationNote(target, organizationId, seedFile));
    }
    if (
      (adminCommand === 'org activate' || adminCommand === 'org deactivate') &&
      serverSeedFile &&
      !targetsSeedFile(seedFile)
    ) {
      const organizationId = required(commandLine.options, 'id');
      const note = await seedFileActiveNote(
        serverSeedFile,
        organizationId,
        adminCommand === 'org activate',
      );
      if (note) lines.push(note);
    }
    // An empty listing prints nothing, not an empty line. Names are the members' own text.
    if (lines.length > 0) process.stdout.write(lines.map(terminalText).join('\n') + '\n');
  } finally {
    await target.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    // A refusal may repeat what was typed or stored; the usage after it is the CLI's own text.
    const message =
      error instanceof UsageError
        ? `${terminalText(error.problem)}\n\n${USAGE}`
        : terminalText(error instanceof Error ? error.message : String(error));
    process.stderr.write(`admin: ${message}\n`);
    process.exit(error instanceof ProvisioningError ? 2 : 1);
  });
}
