import { timersLeftBy } from '../support/timers-left';
import { limitersOnSharedRedis } from '../support/shared-limit-fixture';

describe('closing the Redis limiters', () => {
  it('leaves no timer that would keep the process alive', async () => {
    const shared = await limitersOnSharedRedis('closing');
    // A connection that has been used, as at the end of a server's life.
    await shared.limiters.perToken.consume('closing-token');
    expect(await timersLeftBy(() => shared.close())).toEqual([]);
  });
});
