import { RestartBackoff } from '../../core/runtime/cluster/restart-backoff';

describe('the back-off before restarting a worker', () => {
  const options = { initialMs: 100, maxMs: 1_000, stableMs: 30_000 };

  it('doubles with each exit in a row, up to the maximum', () => {
    const backoff = new RestartBackoff(options);
    const delays = Array.from({ length: 6 }, () => backoff.next(50));
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('starts again from the initial delay after a worker stayed up for the stable time', () => {
    const backoff = new RestartBackoff(options);
    backoff.next(50);
    backoff.next(50);
    expect(backoff.next(30_000)).toBe(100);
    expect(backoff.next(10)).toBe(200);
  });
});
