import { inspect } from 'node:util';
import { silentLogger } from '../../core';
import {
  describeRedisUrl,
  parseRedisUrl,
  withoutArguments,
} from '../../core/adapters/redis/redis-connection';
import { createRedisLimiters } from '../../core/adapters/redis/redis-limiters';

describe('REDIS_URL', () => {
  it('is described for logs by host, port and database, never by its credentials', () => {
    const url = parseRedisUrl('redis://user:s3cret-pass@cache.internal:6380/4');
    expect(describeRedisUrl(url)).toBe('cache.internal:6380/4');
    expect(describeRedisUrl(parseRedisUrl('rediss://:pw@cache.internal'))).toBe(
      'cache.internal:6379',
    );
  });

  it.each(['cache.internal:6379', 'http://cache.internal:6379', 'not a url'])(
    'refuses %j at start-up without repeating it',
    async (value) => {
      const attempt = createRedisLimiters({
        url: value,
        perTokenLimit: 60,
        authFailureLimit: 30,
        logger: silentLogger,
      });
      await expect(attempt).rejects.toThrow(/REDIS_URL/);
      await attempt.catch((error: Error) => expect(error.message).not.toContain(value));
    },
  );

  it('is never logged through an error: the handshake command’s arguments are dropped', () => {
    const refused = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      name: 'ReplyError',
      command: { name: 'hello', args: ['3', 'AUTH', 'default', 's3cret-pass'] },
    });
    // A Cluster wraps the node's error.
    const wrapped = Object.assign(new Error('Failed to refresh slots cache.'), {
      lastNodeError: refused,
    });
    for (const error of [refused, wrapped]) {
      const kept = withoutArguments(error);
      expect(inspect(kept, { depth: 10 })).not.toContain('s3cret');
      expect(kept).toMatchObject({ message: error.message });
    }
    expect(withoutArguments(refused)).toMatchObject({
      name: 'ReplyError',
      command: { name: 'hello' },
    });
    const plain = new Error('connect ECONNREFUSED');
    expect(withoutArguments(plain)).toBe(plain);
  });
});
