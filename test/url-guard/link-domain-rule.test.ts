import { createLinkDomainRule } from '../../core/url-guard/link-domain-rule';
import { LinkDomainSource } from '../../core/url-guard/link-domain-source';
import { organization, recordingLogger } from './fixtures';

const LOOP = {
  blocked: true,
  reason: "the host is one of this service's own link domains (a link to a link)",
};

/** A store stand-in for the one method the source uses, counting calls. */
function domainsFrom(initial: string[]) {
  const state = { domains: initial, calls: 0, failing: false, hanging: false };
  return {
    state,
    identities: {
      listLinkDomains: () => {
        state.calls += 1;
        if (state.hanging) return new Promise<string[]>(() => undefined);
        if (state.failing) return Promise.reject(new Error('store down'));
        return Promise.resolve([...state.domains]);
      },
    },
  };
}

/** Lets pending promise callbacks (a background reload) run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What `pending` settles to within a few turns of the event loop, or 'waited'. */
async function answersAtOnce<T>(pending: Promise<T>): Promise<T | 'waited'> {
  const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 50));
  return Promise.race([pending, waited]);
}

describe('own link domains (loops)', () => {
  const setup = (domains: string[]) => {
    const { state, identities } = domainsFrom(domains);
    let now = 1_000_000;
    const logger = recordingLogger();
    const source = new LinkDomainSource(identities, { refreshMs: 10_000, logger, now: () => now });
    const rule = createLinkDomainRule(source);
    const check = (url: string) => rule.check(new URL(url), { organization });
    return { state, source, check, logger, advance: (ms: number) => (now += ms) };
  };

  it('refuses a link domain on its default ports and a host:port domain on that port only', async () => {
    const { check } = setup(['acme.link', 'localhost:8080', 'plain.example:80']);
    expect(await check('https://acme.link/abc')).toEqual(LOOP);
    expect(await check('http://ACME.link./abc')).toEqual(LOOP);
    expect(await check('https://acme.link:443/abc')).toEqual(LOOP);
    expect(await check('http://localhost:8080/abc')).toEqual(LOOP);
    expect(await check('http://plain.example/abc')).toEqual(LOOP);

    expect(await check('https://acme.link:8443/abc')).toEqual({ blocked: false });
    expect(await check('http://localhost:3000/abc')).toEqual({ blocked: false });
    expect(await check('http://localhost/abc')).toEqual({ blocked: false });
    expect(await check('https://plain.example:8443/')).toEqual({ blocked: false });
    expect(await check('https://www.acme.link/')).toEqual({ blocked: false });
  });

  it('reads port 80 written with leading zeros as port 80, as provisioning does', async () => {
    const { check } = setup(['zeros.example:080']);
    expect(await check('http://zeros.example/abc')).toEqual(LOOP);
    expect(await check('https://zeros.example/abc')).toEqual({ blocked: false });
  });

  it('queries the store once per refresh period, not per check', async () => {
    const { state, check } = setup(['acme.link']);
    await Promise.all([check('https://a.example/'), check('https://b.example/')]);
    for (let i = 0; i < 20; i += 1) await check('https://example.com/');
    expect(state.calls).toBe(1);
  });

  it('sees a newly provisioned domain once the reload after the period is in, or at once after invalidate()', async () => {
    const { state, source, check, advance } = setup(['acme.link']);
    expect(await check('https://new.link/x')).toEqual({ blocked: false });
    state.domains = ['acme.link', 'new.link'];
    advance(5_000);
    expect(await check('https://new.link/x')).toEqual({ blocked: false }); // still cached
    advance(5_000);
    // The check past the period answers from the list in hand and reloads it meanwhile.
    expect(await check('https://new.link/x')).toEqual({ blocked: false });
    await settled();
    expect(await check('https://new.link/x')).toEqual(LOOP);

    state.domains = ['acme.link', 'new.link', 'newer.link'];
    source.invalidate();
    expect(await check('https://newer.link/x')).toEqual(LOOP);
    expect(state.calls).toBe(3);
  });

  it('never puts a reload on a check: a store that hangs past the period is not waited for', async () => {
    const { state, check, advance } = setup(['acme.link']);
    expect(await check('https://acme.link/x')).toEqual(LOOP);
    state.hanging = true;
    advance(10_000);
    expect(await answersAtOnce(check('https://acme.link/x'))).toEqual(LOOP);
    advance(10_000);
    expect(await answersAtOnce(check('https://acme.link/y'))).toEqual(LOOP);
    expect(state.calls).toBe(2); // the one hung reload, not one per check
  });

  it('keeps the last list when a reload fails, and logs it once per period', async () => {
    const { state, check, advance, logger } = setup(['acme.link']);
    expect(await check('https://acme.link/x')).toEqual(LOOP);
    state.failing = true;
    advance(10_000);
    expect(await check('https://acme.link/x')).toEqual(LOOP);
    expect(await check('https://acme.link/y')).toEqual(LOOP);
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1);
    expect(state.calls).toBe(2);
  });

  it('lets the store error through when no list was ever loaded', async () => {
    const { state, check } = setup(['acme.link']);
    state.failing = true;
    await expect(check('https://acme.link/x')).rejects.toThrow('store down');
  });
});
