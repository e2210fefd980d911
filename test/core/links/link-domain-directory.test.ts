import { LinkDomainDirectory } from '../../../core/links/link-domain-directory';
import { domainCandidates } from '../../../core/links/link-host';
import { captureLogs } from '../../support/log-capture';

/** A link store whose listDomains the test answers, counting the calls. */
function listing(initial: string[]) {
  let domains = initial;
  let failure: Error | undefined;
  let calls = 0;
  return {
    links: {
      listDomains: () => {
        calls += 1;
        return failure ? Promise.reject(failure) : Promise.resolve([...domains]);
      },
    },
    set: (next: string[]) => (domains = next),
    fail: (error: Error | undefined) => (failure = error),
    calls: () => calls,
  };
}

const read = async (directory: LinkDomainDirectory, host: string) =>
  (await directory.domainsToRead(domainCandidates(host) ?? [])).map((c) => c.domain);

describe('the link domain directory', () => {
  it('reads the form a link is stored under, or the Host’s own form when it knows none', async () => {
    const store = listing(['acme.link', 'legacy.link:443', 'both.link', 'both.link:443']);
    const directory = new LinkDomainDirectory(store.links, {
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
    expect(store.calls()).toBe(1);
  });

  it('reloads after its period, in the background: no follow waits for it', async () => {
    let now = 0;
    const store = listing(['acme.link']);
    const directory = new LinkDomainDirectory(store.links, {
      refreshMs: 10_000,
      logger: captureLogs().logger,
      now: () => now,
    });
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link:443']);
    store.set(['acme.link', 'fresh.link']);
    now = 9_999;
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link:443']);
    expect(store.calls()).toBe(1);
    now = 10_000;
    // This follow starts the reload and is answered from the list it had.
    expect(directory.knownNow(domainCandidates('fresh.link:443')!).map((c) => c.domain)).toEqual([
      'fresh.link:443',
    ]);
    expect(directory.knownNow(domainCandidates('fresh.link:443')!)).toHaveLength(1);
    expect(store.calls()).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await read(directory, 'fresh.link:443')).toEqual(['fresh.link']);
    expect(store.calls()).toBe(2);
  });

  it('keeps what it knew when a load fails, says so once per period, and tries again', async () => {
    let now = 0;
    const logs = captureLogs();
    const store = listing([]);
    store.fail(new Error('store away'));
    const directory = new LinkDomainDirectory(store.links, {
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
    store.set(['elsewhere.link:443']);
    directory.knownNow([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await read(directory, 'elsewhere.link')).toEqual(['elsewhere.link:443']);
    expect(await read(directory, 'made.here:443')).toEqual(['made.here']);
    expect(store.calls()).toBe(2);
  });
});
