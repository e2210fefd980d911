import { FairShareQuota } from '../../core/url-guard/safe-browsing/fair-share-quota';

describe('the reputation lookup quota, shared fairly between organizations', () => {
  const setup = (perWindow: number) => {
    let now = 1_000_000;
    const quota = new FairShareQuota(perWindow, 60_000, () => now);
    const takes = (tenant: string, times: number) =>
      Array.from({ length: times }, () => quota.take(tenant).granted).filter(Boolean).length;
    return { quota, takes, advance: (ms: number) => (now += ms) };
  };

  it('keeps a share back for an organization that has not asked yet', () => {
    const { takes } = setup(600);
    expect(takes('greedy', 1000)).toBe(300);
    expect(takes('newcomer', 1000)).toBe(200);
    expect(takes('third', 1000)).toBe(100);
  });

  it('says how long until the quota refills, and refills it each window', () => {
    const { quota, takes, advance } = setup(10);
    expect(takes('acme', 10)).toBe(5);
    advance(45_000);
    expect(quota.take('acme')).toEqual({ granted: false, retryAfterMs: 15_000 });
    advance(15_000);
    // acme asked in the last window, so it still counts as active: a lone tenant keeps half.
    expect(takes('acme', 10)).toBe(5);
  });

  it('never grants more than the whole quota, however many organizations ask', () => {
    const { takes } = setup(10);
    let granted = 0;
    for (let tenant = 0; tenant < 50; tenant += 1) granted += takes(`org-${tenant}`, 5);
    expect(granted).toBe(10);
  });
});
