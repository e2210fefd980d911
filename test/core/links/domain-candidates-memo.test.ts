import { domainCandidates } from '../../../core/links/link-host';

describe("a Host's domain candidates, kept per Host", () => {
  it('answers the same frozen list on each call, equal to a fresh one', () => {
    const first = domainCandidates('Bücher.Link');
    expect(first).toEqual([
      { domain: 'xn--bcher-kva.link' },
      { domain: 'xn--bcher-kva.link:443', scheme: 'https' },
      { domain: 'xn--bcher-kva.link:80', scheme: 'http' },
    ]);
    expect(domainCandidates('Bücher.Link')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first!.every((candidate) => Object.isFrozen(candidate))).toBe(true);
  });

  it('keeps answering right past the table bound (made-up Hosts empty it)', () => {
    const kept = domainCandidates('acme.link:443');
    for (let i = 0; i < 2500; i += 1) domainCandidates(`host-${i}.example`);
    expect(domainCandidates('acme.link:443')).toEqual(kept);
    expect(domainCandidates('acme.link:443')).toEqual([
      { domain: 'acme.link:443' },
      { domain: 'acme.link', scheme: 'https' },
    ]);
    expect(domainCandidates('acme.link:')).toBeNull();
  });
});
