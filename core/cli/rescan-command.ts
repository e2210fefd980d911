import { systemClock } from '../adapters/system-clock';
import type { Logger, LogFn } from '../ports/logger';
import type { Store } from '../ports/store';
import type { Config } from '../runtime/config';
import { createUrlGuardFromConfig } from '../runtime/url-guard-from-config';
import type { Options } from './admin-command-line';
import { requireOrganization } from './link-commands';
import { rescanLinks, type RescanOptions, type RescanOutcome } from './link-rescan';
import { checkpointPathOf, storeNameOf } from './rescan-checkpoint';
import { createRescanTerminal, rescanSummary, type RescanStreams } from './rescan-terminal';

/**
 * Said before a rescan without SAFE_BROWSING_URL: the links are checked by the local rules alone,
 * so a target only the reputation service knows as dangerous stays followed.
 */
export const REPUTATION_LOOKUP_OFF =
  'admin: the reputation lookup is off (SAFE_BROWSING_URL is not set): the links are checked by the local rules only';

/** What the rescan needs beside the store; tests give their own waits. */
interface RescanCommandOptions {
  streams: RescanStreams;
  /** Aborted on SIGINT or SIGTERM: the rescan stops after the link it is deciding. */
  signal: AbortSignal;
  wait?: RescanOptions['wait'];
}

/**
 * A logger for the URL guard that prints its warnings (a reputation lookup that failed, a
 * blocklist file that cannot be read) through `note` (the rescan's: above its progress bar); its
 * routine lines are not the operator's business here.
 */
export function warningsTo(note: (line: string) => void): Logger {
  const quiet: LogFn = () => undefined;
  const say =
    (level: string): LogFn =>
    (first: object | string, message?: string) => {
      if (typeof first === 'string') return note(`admin: ${level}: ${first}`);
      const { err: _err, ...fields } = first as Record<string, unknown>;
      const detail = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      note(`admin: ${level}: ${message ?? ''}${detail}`);
    };
  return { debug: quiet, info: quiet, warn: say('warning'), error: say('error') };
}

/**
 * `link rescan [--org ID] [--checkpoint FILE]`: the stored active links through the URL guard
 * the configuration builds (the reputation lookup included when SAFE_BROWSING_URL is set), with
 * the checkpoint of rescan-checkpoint.ts. Prints the summary, and when stopped where the
 * checkpoint is.
 */
export async function runRescanCommand(
  config: Config,
  store: Store,
  options: Options,
  run: RescanCommandOptions,
): Promise<RescanOutcome> {
  const organizationId = typeof options.org === 'string' ? options.org : null;
  if (organizationId !== null) await requireOrganization(store, organizationId);
  const checkpointPath = checkpointPathOf(
    config,
    typeof options.checkpoint === 'string' ? options.checkpoint : undefined,
  );
  const terminal = createRescanTerminal(run.streams);
  if (!config.SAFE_BROWSING_URL) terminal.note(REPUTATION_LOOKUP_OFF);
  const configured = await createUrlGuardFromConfig(
    config,
    warningsTo((line) => terminal.note(line)),
    store,
  );
  try {
    const outcome = await rescanLinks({
      store,
      guard: configured.guard,
      clock: systemClock,
      organizationId,
      checkpointPath,
      storeName: storeNameOf(config),
      signal: run.signal,
      report: terminal,
      countAhead: terminal.drawsBar,
      ...(run.wait && { wait: run.wait }),
    });
    terminal.finish(rescanSummary(outcome.counts, outcome.stopped));
    if (outcome.stopped) {
      terminal.note(
        `admin: checkpoint saved in ${checkpointPath}: run the same command again to continue`,
      );
    }
    return outcome;
  } finally {
    await configured.close();
  }
}
