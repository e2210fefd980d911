import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../errors/error-catalogue';
import { ShortlinkError } from '../errors/shortlink-error';
import { setLinkState } from '../links/set-link-state';
import type { Clock } from '../ports/clock';
import type { Organization } from '../ports/identity-store';
import { positionOf, RESCAN_ACTOR, type LinkPosition, type LinkRecord } from '../ports/link-store';
import { operatorActing } from '../links/link-actor';
import type { Store } from '../ports/store';
import type { UrlGuard, UrlVerdict } from '../ports/url-guard';
import { LINK_PAGE_SIZE } from './link-commands';
import {
  checkCheckpointFits,
  checkCheckpointFolder,
  noCounts,
  readCheckpoint,
  removeCheckpoint,
  saveCheckpoint,
  type RescanCheckpoint,
  type RescanCounts,
} from './rescan-checkpoint';

/** What a rescan tells the operator while it runs (rescan-terminal.ts prints it). */
export interface RescanReport {
  /**
   * Before the first link: below which link it starts (null: from the newest), the counts of the
   * runs before, and how many links lie ahead when they were counted.
   */
  started(resumedAfter: number | null, counts: RescanCounts, ahead: number | undefined): void;
  /** A link the rescan disabled, and the reason recorded. */
  disabled(link: LinkRecord, reason: string): void;
  /** The reputation quota is used up: the rescan waits this long, then checks the link again. */
  waiting(seconds: number): void;
  /** After each link: the counts so far (earlier runs of a resumed rescan included). */
  progress(counts: RescanCounts): void;
}

export interface RescanOptions {
  store: Store;
  /** The whole URL guard, as the service builds it from the configuration. */
  guard: UrlGuard;
  clock: Clock;
  /** One organization's links, or (null) every link. */
  organizationId: string | null;
  checkpointPath: string;
  /** The store's name, recorded in the checkpoint (rescan-checkpoint.ts storeNameOf). */
  storeName: string;
  /** Aborted: the rescan finishes the link it is checking, saves the checkpoint and stops. */
  signal: AbortSignal;
  report: RescanReport;
  /** Counts the links ahead before starting (for a progress bar). */
  countAhead?: boolean;
  /** Waits `ms`, or less when `signal` is aborted (tests pass a clock of their own). */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The checkpoint is saved at most this often while the rescan runs, and when it stops. */
  saveEveryMs?: number;
}

export interface RescanOutcome {
  /** True when the signal stopped it; the checkpoint is then saved. */
  stopped: boolean;
  counts: RescanCounts;
}

/** The recorded reason of a link disabled by the rescan: the rule that now refuses its target. */
const rescanReason = (verdict: Extract<UrlVerdict, { blocked: true }>) =>
  `rescan: ${verdict.rule ?? 'url guard'}`;

const waitAbortably = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

/**
 * Checks the active links of the scope again, newest first, through the URL guard, and disables
 * each one it now refuses (by `admin`, reason `rescan: <rule>`). A refusal without a verdict (the
 * reputation service could not check, SAFE_BROWSING_FAIL=closed) disables nothing. A used-up
 * reputation quota (BACKEND_UNAVAILABLE with a retry time) is waited out and the same link checked
 * again: never skipped, never disabled for it.
 *
 * One link at a time, so the checkpoint is exact: every link of the scope from the newest down to
 * `lastId` is finished, and a rerun continues after it without checking any of them again. Links
 * created after the rescan started are newer than where it is and are not its business: they
 * passed the guard when they were created.
 */
export async function rescanLinks(options: RescanOptions): Promise<RescanOutcome> {
  const { store, organizationId, checkpointPath, signal, report } = options;
  const wait = options.wait ?? waitAbortably;
  const saveEveryMs = options.saveEveryMs ?? 1000;
  checkCheckpointFolder(checkpointPath);
  const previous = await readCheckpoint(checkpointPath);
  if (previous) checkCheckpointFits(checkpointPath, previous, options.storeName, organizationId);

  const checkpoint: RescanCheckpoint = previous ?? {
    version: 1,
    store: options.storeName,
    organizationId,
    lastId: null,
    counts: noCounts(),
    startedAt: options.clock.now().toISOString(),
    savedAt: '',
  };
  const { counts } = checkpoint;
  let lastSaved = Date.now();
  const save = async () => {
    checkpoint.savedAt = options.clock.now().toISOString();
    await saveCheckpoint(checkpointPath, checkpoint);
    lastSaved = Date.now();
  };

  // The checkpoint names the last finished link by id; the listing goes on after its position.
  let before = await positionOfId(store, checkpoint.lastId);
  const ahead = options.countAhead ? await countLinks(store, organizationId, before) : undefined;
  report.started(checkpoint.lastId, { ...counts }, ahead);
  const running = { ...options, organizations: new Map<string, Organization>() };
  try {
    for (;;) {
      const page = await store.links.list({
        ...(organizationId !== null && { organizationId }),
        ...(before !== undefined && { before }),
        limit: LINK_PAGE_SIZE,
      });
      for (const link of page) {
        const finished = signal.aborted ? false : await rescanOne(running, link, counts, wait);
        // Stopped (before this link, or while it waited for the quota): it is not finished.
        if (!finished) {
          await save();
          return { stopped: true, counts: { ...counts } };
        }
        checkpoint.lastId = link.id;
        before = positionOf(link);
        report.progress({ ...counts });
        if (Date.now() - lastSaved >= saveEveryMs) await save();
      }
      if (page.length < LINK_PAGE_SIZE) break;
    }
  } catch (error) {
    // What is finished stays finished: a rerun continues after it.
    await save().catch(() => undefined);
    throw error;
  }
  await removeCheckpoint(checkpointPath);
  return { stopped: false, counts: { ...counts } };
}

/**
 * One link: passed over when disabled already; else checked, and disabled when refused. False
 * when the rescan was stopped before the link was decided.
 */
async function rescanOne(
  options: RescanOptions & { organizations: Map<string, Organization> },
  link: LinkRecord,
  counts: RescanCounts,
  wait: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<boolean> {
  if (link.disabled) {
    counts.skipped += 1;
    return true;
  }
  const organization = await organizationOf(options.store, options.organizations, link);
  const verdict = await checkWithinQuota(options, link, organization, wait);
  if (verdict === 'stopped') return false;
  if (!verdict.blocked) {
    counts.checked += 1;
    counts.kept += 1;
  } else if (verdict.undecided) {
    counts.checked += 1;
    counts.undecided += 1;
  } else if (await disable(options, link, verdict)) {
    counts.checked += 1;
    counts.disabled += 1;
  } else {
    // Disabled by someone else since it was read: theirs stands; it was not active any more.
    counts.skipped += 1;
  }
  return true;
}

/** The guard's verdict on the link's target; a used-up quota is waited out, then asked again. */
async function checkWithinQuota(
  options: RescanOptions,
  link: LinkRecord,
  organization: Organization,
  wait: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<UrlVerdict | 'stopped'> {
  for (;;) {
    try {
      return await options.guard.check(new URL(link.url), { organization });
    } catch (error) {
      const seconds = error instanceof ShortlinkError ? error.retryAfterSeconds : undefined;
      const atQuota =
        error instanceof ShortlinkError && error.code === ErrorCode.BACKEND_UNAVAILABLE;
      if (!atQuota || seconds === undefined) throw error;
      options.report.waiting(seconds);
      await wait(seconds * 1000, options.signal);
      if (options.signal.aborted) return 'stopped';
    }
  }
}

/** Disables the link for the rule that refused it; false when it was disabled meanwhile. */
async function disable(
  options: RescanOptions,
  link: LinkRecord,
  verdict: Extract<UrlVerdict, { blocked: true }>,
): Promise<boolean> {
  const reason = rescanReason(verdict);
  const acting = operatorActing(options.clock, RESCAN_ACTOR);
  const disabling = { reason, at: acting.at, by: acting.by };
  const outcome = await setLinkState({ store: options.store }, link, disabling, acting);
  if (outcome.changed) options.report.disabled(outcome.link, reason);
  return outcome.changed;
}

/**
 * The link's organization, read once per rescan. Organizations are never deleted; should one be
 * missing all the same, its links are still checked, under a stand-in holding its id (the rules
 * read only the id, for the reputation lookup's fair share).
 */
async function organizationOf(
  store: Store,
  cache: Map<string, Organization>,
  link: LinkRecord,
): Promise<Organization> {
  const known = cache.get(link.organizationId);
  if (known) return known;
  const organization = (await store.identities.findOrganizationById(link.organizationId)) ?? {
    id: link.organizationId,
    name: link.organizationId,
    domain: link.domain,
    scheme: link.scheme,
    active: false,
    keyHash: '',
  };
  cache.set(link.organizationId, organization);
  return organization;
}

/** Where the listing goes on after the link with this id (links are never deleted). */
async function positionOfId(store: Store, id: number | null): Promise<LinkPosition | undefined> {
  if (id === null) return undefined;
  const link = await store.links.findById(id);
  if (!link) throw new Error(`the checkpoint's last link ${id} is not in the store`);
  return positionOf(link);
}

/** How many links of the scope lie after `before` (all, from the newest, when undefined). */
async function countLinks(
  store: Store,
  organizationId: string | null,
  before: LinkPosition | undefined,
): Promise<number> {
  let count = 0;
  let after = before;
  for (;;) {
    const page = await store.links.list({
      ...(organizationId !== null && { organizationId }),
      ...(after !== undefined && { before: after }),
      limit: LINK_PAGE_SIZE,
    });
    count += page.length;
    const last = page.at(-1);
    if (!last || page.length < LINK_PAGE_SIZE) return count;
    after = positionOf(last);
  }
}
