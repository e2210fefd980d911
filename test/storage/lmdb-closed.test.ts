import { join } from 'node:path';
import { BackendUnavailableError } from '../../core';
import { open } from 'lmdb';
import { createLmdbStore } from '../../core/adapters/lmdb';
import { MAX_DATABASES, openDatabases } from '../../core/adapters/lmdb/databases';
import { LmdbLinkStore } from '../../core/adapters/lmdb/lmdb-link-store';
import { tempDirs } from '../support/temp-dirs';
import { within } from '../support/within';
import { newLink, organization } from './fixtures';

/**
 * A closed LMDB store (a shutdown whose drain ran out, an embedder's late call) answers every
 * operation with BackendUnavailableError (code 23). lmdb-js itself queues a write on a closed
 * environment and throws from a later turn, outside any promise (an uncaught exception that stops
 * the process) while the write's promise never settles; its reads fail with plain errors (code 1).
 */
const dirs = tempDirs('lmdb-closed');
afterAll(() => dirs.removeAll());

const running = {
  state: 'running' as const,
  owner: 'owner-1',
  fingerprint: 'f',
  expiresAt: new Date(Date.now() + 60_000),
};
const scope = { userId: 'alice', key: 'key-1' };

describe('LMDB store: operations after close', () => {
  it('answers every write and read with BackendUnavailableError, never a crash or a hang', async () => {
    const store = await createLmdbStore({ dataDir: join(await dirs.make(), 'data') });
    await store.links.insert(newLink({ alias: 'before' }));
    await store.close();

    const calls: Array<[string, () => Promise<unknown>]> = [
      ['link insert', () => store.links.insert(newLink({ alias: 'after' }))],
      ['link lookup', () => store.links.findByAlias('acme.link', 'before')],
      ['claim', () => store.idempotency.claim(scope, running, new Date())],
      ['release', () => store.idempotency.release(scope, 'owner-1')],
      [
        'token save',
        () =>
          store.identities.saveToken({ tokenHash: 'h', userId: 'alice', createdAt: new Date() }),
      ],
      ['organization save', () => store.identities.saveOrganization(organization())],
      ['token lookup', () => store.identities.findUserIdByTokenHash('h')],
      ['ping', () => store.ping()],
    ];
    for (const [name, call] of calls) {
      const outcome = await within(
        call().then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        2000,
      );
      expect([name, outcome]).toEqual([name, expect.any(BackendUnavailableError)]);
    }
  });

  it('reports a read on an environment closed under it as a storage failure (23), not a bug', async () => {
    const path = await dirs.make();
    const root = open({ path, maxDbs: MAX_DATABASES });
    const links = new LmdbLinkStore(openDatabases(root), path);
    await root.close();
    await expect(links.findByAlias('acme.link', 'promo')).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });
});
