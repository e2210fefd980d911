import { once } from 'node:events';
import { systemClock } from '../adapters/system-clock';
import type { Config } from '../runtime/config';
import type { LinkCommand, Options } from './admin-command-line';
import { openLinkStore } from './admin-store';
import { linkCommand, type PrintLine } from './link-commands';
import { runRescanCommand, warningsTo } from './rescan-command';
import { terminalText } from './terminal-text';
import { linkUpdateCommand } from './link-update';
import { linkVisitsCommand } from './link-visits-command';
import { createUrlGuardFromConfig } from '../runtime/url-guard-from-config';

/** Exit statuses of a rescan stopped by a signal, as a shell reports a process it killed. */
const STOPPED_BY: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Standard output, waiting when a pipe is full rather than holding a whole listing in memory;
 * every line holds stored text (reasons, URLs), escaped for the terminal.
 */
const printToStdout: PrintLine = (line) =>
  process.stdout.write(`${terminalText(line)}\n`)
    ? undefined
    : once(process.stdout, 'drain').then(() => undefined);

/**
 * Runs a link command of the command line on the configured store, the process's side of it:
 * standard output, and for `link rescan` SIGINT and SIGTERM, which stop it cleanly (the link being
 * decided is finished, the checkpoint saved) with exit status 130 or 143; a second signal exits
 * at once.
 */
export async function runLinkCommandLine(
  config: Config,
  seedFile: string | undefined,
  command: LinkCommand,
  options: Options,
): Promise<void> {
  // Read before the store opens: a mistake on the command line opens nothing.
  if (command === 'link update') {
    await updateWithGuard(config, seedFile, linkUpdateCommand(options, systemClock.now()));
    return;
  }
  if (command === 'link visits') {
    const visits = linkVisitsCommand(options);
    const store = await openLinkStore(config, seedFile, { readOnly: true });
    try {
      const { isTTY, columns } = process.stdout;
      await visits(store, systemClock, { print: printToStdout, isTTY: isTTY === true, columns });
    } finally {
      await store.close();
    }
    return;
  }
  const run = command === 'link rescan' ? undefined : linkCommand(command, options);
  const readOnly = command === 'link show' || command === 'link list' || command === 'link history';
  const store = await openLinkStore(config, seedFile, { readOnly });
  try {
    if (run) await run(store, systemClock, printToStdout);
    else await rescanUntilStopped(config, store, options);
  } finally {
    await store.close();
  }
}

/**
 * `link update` with the URL guard the configuration builds, as the server's create uses it
 * (the reputation lookup included when SAFE_BROWSING_URL is set); its warnings on standard error.
 */
async function updateWithGuard(
  config: Config,
  seedFile: string | undefined,
  run: ReturnType<typeof linkUpdateCommand>,
): Promise<void> {
  const store = await openLinkStore(config, seedFile, { readOnly: false });
  try {
    const note = (line: string) => process.stderr.write(`${line}\n`);
    const configured = await createUrlGuardFromConfig(config, warningsTo(note), store);
    try {
      await run(store, systemClock, printToStdout, configured.guard);
    } finally {
      await configured.close();
    }
  } finally {
    await store.close();
  }
}

async function rescanUntilStopped(
  config: Config,
  store: Parameters<typeof runRescanCommand>[1],
  options: Options,
): Promise<void> {
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stoppedBy) process.exit(STOPPED_BY[signal] ?? 1);
    stoppedBy = signal;
    process.stderr.write(
      `\nadmin: ${signal}: stopping after the link being checked (again to stop at once)\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const outcome = await runRescanCommand(config, store, options, {
      streams: { out: process.stdout, err: process.stderr },
      signal: controller.signal,
    });
    if (outcome.stopped) process.exitCode = STOPPED_BY[stoppedBy ?? 'SIGINT'] ?? 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
