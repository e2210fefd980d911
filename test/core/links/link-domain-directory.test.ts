import { LinkDomainDirectory } from '../../../core/links/link-domain-directory';
import { domainCandidates } from '../../../core/links/link-host';
import { captureLogs } from '../../support/log-capture';

/**
 * A link store's listDomains (the domains links are stored under) and an identity store's
 * listLinkDomains (the organizations' domains), answered by the test, each counting its calls.
 */
function listing(links: string[], organizations: string[] = []) {
  const lists = { links, organizations };
  let failure: Error | undefined;
  const calls = { links: 0, organizations: 0 };
  const answer = (list: keyof typeof lists) => {
    calls[list] += 1;
    return failure ? Promise.reject(failure) : Promise.resolve([...lists[list]]);
  };
  return {
    sources: {
      links: { listDomains: () => answer('links') },
      identities: { listLinkDomains: () => answer('organizations') },
    },
    set: (list: keyof typeof lists, next: string[]) => (lists[list] = next),
    fail: (error: Error | undefined) => (failure = error),
    calls,
  };
}

const read = async (directory: LinkDomainDirectory, host: string) =>
  (await directory.domainsToRead(domainCandidates(host) ?? [])).map((c) => c.domain);

describe('the link domain directory', () => {
  it('reads the form a link is stored under, or the Host’s own form when it knows none', async () => {
    const store = listing(['acme.link', 'legacy.link:443', 'both.link', 'both.link:443']);
    const directory = new LinkDomainDirectory(store.sources, {
      refreshMs: 60_000,
      logger: captureLogs().logger,
    });
    expect(await read(directory, 'acme.link')).toEqual(['acme.link']);
    expect(await read(directory, 'ACME.link.:443')).toEqual(['acme.link']);
    expect(await read(directory, 'legacy.link')).toEqual(['legacy.link:443']);
    expect(await read(directory, 'both.link')).toEqual(['both.link', 'both.link:443']);
    expect(await read(directory, 'new.link:443')).toEqual(['new.link:443']);
    expect(await read(directory, 'new.link')).toEqual(['new.link']);
    directory.add('new.link');
    expect(await read(directory, 'new.link:443')).toEqual(['new.link']);
    expect(store.calls).toEqual({ links: 1, organizations: 1 });
  });

  it('reloads the organizations’ domains after its period, in the background: no follow waits for it', async () => {
    let now = 0;
    const store = listing(['acme.link'], ['acme.link']);
    const directory = new LinkDomainDirectory(store.sources, {
      refreshMs: 10_000,
      logger: captureLogs().logger,
      now: () => now,
    });
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link:443']);
    store.set('organizations', ['acme.link', 'fresh.link']);
    now = 9_999;
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link:443']);
    expect(store.calls).toEqual({ links: 1, organizations: 1 });
    now = 10_000;
    // This follow starts the reload and is answered from the list it had.
    expect(directory.knownNow(domainCandidates('fresh.link:443')!).map((c) => c.domain)).toEqual([
      'fresh.link:443',
    ]);
    expect(directory.knownNow(domainCandidates('fresh.link:443')!)).toHaveLength(1);
    expect(store.calls).toEqual({ links: 1, organizations: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link']);
    expect(store.calls).toEqual({ links: 1, organizations: 2 });
  });

  it('reads the links’ own domains once, and again only after that read failed', async () => {
    let now = 0;
    const logs = captureLogs();
    const store = listing(['old.link:443'], ['old.link']);
    const links = store.sources.links;
    let linksFail = true;
    store.sources.links = {
      listDomains: () =>
        linksFail ? Promise.reject(new Error('shards away')) : links.listDomains(),
    };
    const directory = new LinkDomainDirectory(store.sources, {
      refreshMs: 1_000,
      logger: logs.logger,
      now: () => now,
    });
    // The organizations' domains came: the Host's own form, not yet the older one.
    expect(await read(directory, 'old.link')).toEqual(['old.link']);
    expect(logs.records().filter((record) => record.level === 40)).toHaveLength(1);
    linksFail = false;
    for (let period = 1; period <= 5; period += 1) {
      now = period * 1_000;
      directory.knownNow([]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await read(directory, 'old.link')).toEqual(['old.link', 'old.link:443']);
    expect(store.calls).toEqual({ links: 1, organizations: 6 });
  });

  it('keeps what it knew when a load fails, says so once per period, and tries again', async () => {
    let now = 0;
    const logs = captureLogs();
    const store = listing([], []);
    store.fail(new Error('store away'));
    const directory = new LinkDomainDirectory(store.sources, {
      refreshMs: 1_000,
      logger: logs.logger,
      now: () => now,
    });
    directory.add('made.here');
    expect(await read(directory, 'made.here:443')).toEqual(['made.here']);
    expect(await read(directory, 'elsewhere.link')).toEqual(['elsewhere.link']);
    expect(logs.records().filter((record) => record.level === 40)).toHaveLength(1);
    now = 1_000;
    store.fail(undefined);
    store.set('links', ['elsewhere.link:443']);
    directory.knownNow([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await read(directory, 'elsewhere.link')).toEqual(['elsewhere.link:443']);
    expect(await read(directory, 'made.here:443')).toEqual(['made.here']);
    expect(store.calls).toEqual({ links: 2, organizations: 2 });
  });
});
