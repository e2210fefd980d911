import { withChildren } from '../support/child';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLmdbStore } from '../../../core/adapters/lmdb';
import { ADMIN_ACTOR } from '../../../core/ports/link-store';
import { operatorActing } from '../../../core/links/link-actor';
import { systemClock } from '../../../core/adapters/system-clock';
import { MAX_VISITS_LIMIT } from '../../../core/links/link-field-limits';
import type { BenchChild } from '../support/child';
import { alternate, type Round, type Summary } from '../support/measurement';
import type { BenchSettings } from '../support/settings';
import { httpRound, type HttpLoad } from '../load/http-load';
import {
  FOLLOWED_LINKS,
  createLinks,
  followLoad,
  startSubject,
  type ServerReady,
} from './http-scenarios';

/** The last commit before links had states: following there had no policy to check. */
export const BUILD_BEFORE_GOVERNANCE = '59aa828';

/** A visit limit no bench run reaches: each follow of such a link still counts atomically. */
const UNREACHED_MAX_VISITS = MAX_VISITS_LIMIT;

export type FollowGovernanceTarget = 'before' | 'redirect' | 'gone' | 'capped';
/** `before` is missing where the earlier build could not be made (no git history). */
export type FollowGovernanceResults = Record<'redirect' | 'gone' | 'capped', Summary> & {
  before?: Summary;
};

const REPOSITORY = resolve(__dirname, '..', '..', '..', '..');

/**
 * The bench's subject server as it was at `commit`, compiled in a directory of its own beside
 * this repository's node_modules; null (the row is then missing) where git or the build fails.
 */
function buildBefore(commit: string, log: (line: string) => void): string | null {
  const directory = mkdtempSync(join(tmpdir(), 'shortlink-before-'));
  try {
    const archive = execFileSync('git', ['-C', REPOSITORY, 'archive', commit], {
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', directory], { input: archive });
    symlinkSync(join(REPOSITORY, 'node_modules'), join(directory, 'node_modules'));
    execFileSync(
      process.execPath,
      [
        join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        'test/bench/tsconfig.json',
      ],
      { cwd: directory, stdio: 'ignore' },
    );
    return join(directory, 'dist-bench', 'test', 'bench', 'servers', 'shortlink-server');
  } catch (error) {
    log(`follow: the build of ${commit} failed (${(error as Error).message}); no "before" row`);
    rmSync(directory, { recursive: true, force: true });
    return null;
  }
}

/** The same follow load, every answer a 410 (the links are disabled). */
function goneLoad(aliases: readonly string[]): HttpLoad {
  return { ...followLoad(aliases), expectedClass: 4 };
}

/**
 * BENCH_ONLY=follow (and the full run): following a link on this build against the build before
 * link governance (one process each, LMDB, default log level), following a disabled link (410)
 * and a link with `max_visits` against following an active one, on one subject, in alternating
 * rounds.
 */
export async function runFollowGovernanceScenario(
  seedFile: string,
  settings: BenchSettings,
  log: (line: string) => void,
  newDataDir: () => string,
): Promise<FollowGovernanceResults> {
  const beforeCommit = settings.followBefore ?? BUILD_BEFORE_GOVERNANCE;
  log(`follow: the "before" server is built from ${beforeCommit}`);
  const beforeModule = buildBefore(beforeCommit, log);
  try {
    return await withChildren(async (keep) => {
      const subjectDir = newDataDir();
      const subject = await keep(startSubject(seedFile, settings, 'info', subjectDir));
      const active = await createLinks(subject.ready.httpPort, FOLLOWED_LINKS);
      const disabled = await createLinks(subject.ready.httpPort, FOLLOWED_LINKS);
      const capped = await createLinks(subject.ready.httpPort, FOLLOWED_LINKS, {
        max_visits: UNREACHED_MAX_VISITS,
      });
      await disableAll(subjectDir, disabled);
      const on = (server: BenchChild<ServerReady>, load: HttpLoad) => (seconds: number) =>
        httpRound({ port: server.ready.httpPort, pid: server.process.pid }, load, seconds);
      const targets: Array<{ name: FollowGovernanceTarget; run: (s: number) => Promise<Round> }> = [
        { name: 'redirect', run: on(subject, followLoad(active)) },
        { name: 'gone', run: on(subject, goneLoad(disabled)) },
        { name: 'capped', run: on(subject, followLoad(capped)) },
      ];
      if (beforeModule) {
        const before = await keep(
          startSubject(seedFile, settings, 'info', newDataDir(), {}, beforeModule),
        );
        targets.unshift({
          name: 'before',
          run: on(before, followLoad(await createLinks(before.ready.httpPort, FOLLOWED_LINKS))),
        });
      }
      return await alternate(targets, settings, (name, index, round) =>
        log(
          `follow-governance round ${index + 1} ${name}: ${round.requestsPerSecond.toFixed(0)} req/s, p50 ${round.p50Ms} ms, server CPU ${round.serverCpuMsPerRequest?.toFixed(3)} ms/req, unexpected ${round.unexpectedStatus}, errors ${round.errors}`,
        ),
      );
    });
  } finally {
    if (beforeModule)
      rmSync(resolve(beforeModule, '..', '..', '..', '..', '..'), { recursive: true, force: true });
  }
}

/** Disables the links behind `aliases` through a second process on the subject's DATA_DIR. */
async function disableAll(dataDir: string, aliases: readonly string[]): Promise<void> {
  const store = await createLmdbStore({ dataDir, migrate: false });
  try {
    for (const alias of aliases) {
      const link = await store.links.findByAlias('bench.link', alias);
      if (!link) throw new Error(`bench: link ${alias} not found`);
      const acting = operatorActing(systemClock, ADMIN_ACTOR);
      await store.links.setDisabled(
        link.id,
        { reason: 'bench', at: acting.at, by: acting.by },
        acting,
      );
    }
    await store.flush();
  } finally {
    await store.close();
  }
}
