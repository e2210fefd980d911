import { readReason } from '../links/disable-link';
import { setLinkState } from '../links/set-link-state';
import type { Clock } from '../ports/clock';
import { ADMIN_ACTOR, positionOf, type LinkPosition, type LinkRecord } from '../ports/link-store';
import { actorOf, operatorActing } from '../links/link-actor';
import type { Store } from '../ports/store';
import { NotFoundProvisioningError, ProvisioningError } from '../provisioning/provisioning-error';
import { usageError, type LinkCommand, type Options } from './admin-command-line';
import { historyLine } from './history-line';
import { historyPage } from '../links/history-pages';
import { linkJson } from './link-json';
import { findNamedLink, readLinkOption } from './link-reference-options';

/** Entries read per store call by `link history`. */
const HISTORY_PAGE_SIZE = 100;

/** Links read per store call by `link list` (and rescan): a page, printed before the next. */
export const LINK_PAGE_SIZE = 500;

/**
 * The link commands but those that need the URL guard: rescan (and its checkpoint,
 * link-rescan.ts) and update (link-update.ts); and visits, which draws for a terminal
 * (link-visits-command.ts).
 */
type LinkReadOrSetCommand = Exclude<LinkCommand, 'link rescan' | 'link update' | 'link visits'>;

function requiredOption(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ProvisioningError(`--${name} is required`);
  }
  return value;
}

/** `--limit N`: a positive whole number; absent: no limit. */
function readLimit(options: Options): number {
  const value = options.limit;
  if (typeof value !== 'string') return Infinity;
  if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw usageError('--limit must be a positive whole number');
  }
  return Number(value);
}

/** An organization that must exist: a mistyped id is refused, not listed as having no links. */
export async function requireOrganization(store: Store, organizationId: string): Promise<void> {
  if (!(await store.identities.findOrganizationById(organizationId))) {
    throw new NotFoundProvisioningError(`no organization "${organizationId}"`);
  }
}

const shortUrlOf = (link: LinkRecord) => `${link.scheme}://${link.domain}/${link.alias}`;

/**
 * Prints one line, escaped for the terminal (terminal-text.ts); a promise when the output is full
 * (a pipe), resolved once it drains.
 */
export type PrintLine = (line: string) => void | Promise<void>;

/** A link command read from its command line, ready to run on a store. */
type LinkCommandRun = (store: Store, clock: Clock, print: PrintLine) => Promise<void>;

/**
 * `link show|list|disable|enable|history` for the operator (any organization). The command line is read
 * here, before any store is opened, so a mistake in it costs nothing; the returned function runs
 * it, printing each line as it comes (a listing page by page, never held whole).
 */
export function linkCommand(command: LinkReadOrSetCommand, options: Options): LinkCommandRun {
  switch (command) {
    case 'link show': {
      const named = readLinkOption(options);
      return async (store, _clock, print) => {
        await print(JSON.stringify(linkJson(await findNamedLink(store.links, named))));
      };
    }
    case 'link list': {
      const query = readListOptions(options);
      return (store, _clock, print) => listLinks(store, query, print);
    }
    case 'link disable': {
      const named = readLinkOption(options);
      const reason = readReason(options.reason);
      if (typeof reason !== 'string') throw usageError(`--${reason.problem}`);
      return async (store, clock, print) => {
        const link = await findNamedLink(store.links, named);
        const acting = operatorActing(clock, ADMIN_ACTOR);
        const disabling = { reason, at: acting.at, by: acting.by };
        const { changed, link: now } = await setLinkState({ store }, link, disabling, acting);
        const first = now.disabled;
        await print(
          changed || !first
            ? `link ${link.id} (${shortUrlOf(link)}) is disabled: ${reason}`
            : `link ${link.id} (${shortUrlOf(link)}) was already disabled, since ${first.at.toISOString()} by ${actorOf(first.by)}: ${first.reason}; nothing changed`,
        );
      };
    }
    case 'link history': {
      const named = readLinkOption(options);
      return async (store, _clock, print) => {
        const link = await findNamedLink(store.links, named);
        for (let from = 0, more = true; more;) {
          const page = await historyPage(store.links, link, from, HISTORY_PAGE_SIZE);
          for (const entry of page.entries) await print(historyLine(entry));
          ({ next: from, more } = page);
        }
      };
    }
    case 'link enable': {
      const named = readLinkOption(options);
      return async (store, clock, print) => {
        const link = await findNamedLink(store.links, named);
        const acting = operatorActing(clock, ADMIN_ACTOR);
        const { changed } = await setLinkState({ store }, link, null, acting);
        await print(
          changed
            ? `link ${link.id} (${shortUrlOf(link)}) is active again`
            : `link ${link.id} (${shortUrlOf(link)}) was already active; nothing changed`,
        );
      };
    }
    default: {
      const unhandled: never = command;
      throw usageError(`unknown command "${String(unhandled)}"`);
    }
  }
}

interface ListOptions {
  organizationId: string;
  group: string | undefined;
  limit: number;
}

function readListOptions(options: Options): ListOptions {
  return {
    organizationId: requiredOption(options, 'org'),
    group: typeof options.group === 'string' ? options.group : undefined,
    limit: readLimit(options),
  };
}

/** `link list`: newest first, a page at a time (paged by position, so nothing repeats or is missed). */
async function listLinks(
  store: Store,
  { organizationId, group, limit }: ListOptions,
  print: PrintLine,
) {
  await requireOrganization(store, organizationId);
  if (group !== undefined && !(await store.identities.findGroup(organizationId, group))) {
    throw new NotFoundProvisioningError(
      `no URL group "${group}" in organization "${organizationId}"`,
    );
  }
  let remaining = limit;
  let before: LinkPosition | undefined;
  while (remaining > 0) {
    const pageSize = Math.min(remaining, LINK_PAGE_SIZE);
    const page = await store.links.list({
      organizationId,
      ...(group !== undefined && { groupApiId: group }),
      ...(before !== undefined && { before }),
      limit: pageSize,
    });
    for (const link of page) await print(JSON.stringify(linkJson(link)));
    const last = page.at(-1);
    if (!last || page.length < pageSize) return;
    remaining -= page.length;
    before = positionOf(last);
  }
}
