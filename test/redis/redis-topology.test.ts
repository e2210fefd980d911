import { describeTopology, parseRedisTopology } from '../../core/adapters/redis/redis-topology';
import { isTopologyMismatch } from '../../core/adapters/redis/topology-errors';
import { loadConfig } from '../../core/runtime';

describe('REDIS_URL topologies', () => {
  it('keeps one redis:// or rediss:// URL a single server', () => {
    expect(parseRedisTopology('redis://cache:6380/2')).toEqual({
      kind: 'standalone',
      url: 'redis://cache:6380/2',
    });
    expect(parseRedisTopology(' rediss://:pw@cache ').kind).toBe('standalone');
  });

  it('reads a comma-separated list as the nodes of a Redis Cluster', () => {
    const topology = parseRedisTopology('redis://:s3cret@a:7000, redis://:s3cret@b ,');
    expect(topology).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 6379 },
      ],
      password: 's3cret',
      tls: false,
    });
    expect(describeTopology(topology)).toBe('cluster a:7000,b:6379');
  });

  it('reads the list as sentinels when REDIS_SENTINEL_NAME is set', () => {
    const topology = parseRedisTopology(
      'rediss://u:p%40ss@s1,rediss://u:p%40ss@[::1]:26380/3',
      'main',
    );
    expect(topology).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      masterName: 'main',
      db: 0,
      username: 'u',
      password: 'p@ss',
      tls: true,
    });
    expect(describeTopology(topology)).toBe('sentinel master "main" via s1:26379,::1:26380');
    expect(describeTopology(topology)).not.toContain('p@ss');
  });

  it.each([
    ['redis://a:1,http://b:2', /redis:\/\/ or rediss:\/\//],
    ['redis://a:1,rediss://b:2', /same scheme and credentials/],
    ['redis://:x@a:1,redis://:y@b:2', /same scheme and credentials/],
    ['redis://a:1/1,redis://b:2/1', /only database 0/],
    [' , ', /empty/],
  ])('refuses %j without repeating it', (value, message) => {
    expect(() => parseRedisTopology(value)).toThrow(message);
    try {
      parseRedisTopology(value);
    } catch (error) {
      expect((error as Error).message).not.toContain(':x@');
    }
  });

  it('refuses REDIS_SENTINEL_NAME without REDIS_URL', () => {
    expect(() => loadConfig({ REDIS_SENTINEL_NAME: 'main' })).toThrow(
      'invalid configuration: REDIS_SENTINEL_NAME: needs REDIS_URL listing the sentinels',
    );
  });
});

describe('answers that mean a misconfiguration', () => {
  const refusal = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

  it.each(['MOVED 3999 127.0.0.1:7001', 'ASK 3999 127.0.0.1:7001', "READONLY You can't write"])(
    '%s is a mismatch for a single server',
    (message) => {
      expect(isTopologyMismatch(refusal(message), 'standalone')).toBe(true);
      expect(isTopologyMismatch(refusal(message), 'cluster')).toBe(true);
    },
  );

  it('READONLY under Sentinel is the failover window, not a mismatch', () => {
    expect(isTopologyMismatch(refusal("READONLY You can't write"), 'sentinel')).toBe(false);
    expect(isTopologyMismatch(refusal('MOVED 1 127.0.0.1:1'), 'sentinel')).toBe(true);
  });

  it('finds the refusal inside a failed MULTI (EXECABORT)', () => {
    const aborted = Object.assign(refusal('EXECABORT Transaction discarded'), {
      previousErrors: [refusal('MOVED 12 127.0.0.1:7002')],
    });
    expect(isTopologyMismatch(aborted, 'standalone')).toBe(true);
  });

  it('leaves outages alone', () => {
    for (const error of [
      new Error('Connection is closed.'),
      new Error('Command timed out'),
      null,
    ]) {
      expect(isTopologyMismatch(error, 'standalone')).toBe(false);
    }
  });
});
