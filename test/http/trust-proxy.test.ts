import { createCore } from '../../core';
import { trustProxySetting } from '../../gateway-http/app';
import { startHttp } from '../support/http-fixture';

describe('TRUST_PROXY', () => {
  it('turns hop counts and booleans into what express expects', () => {
    expect(trustProxySetting('1')).toBe(1);
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
  });

  it('limits failed token checks per forwarded client address behind one trusted proxy', async () => {
    const server = await startHttp(createCore(), { trustProxy: '1' });
    try {
      const attempt = (client: string) =>
        fetch(`http://127.0.0.1:${server.port}/api/create`, {
          method: 'POST',
          headers: { authorization: 'Bearer wrong', 'x-forwarded-for': client },
          body: '{}',
        }).then((res) => res.status);
      for (let i = 0; i < 30; i += 1) expect(await attempt('203.0.113.1')).toBe(401);
      expect(await attempt('203.0.113.1')).toBe(429);
      expect(await attempt('203.0.113.2')).toBe(401);
    } finally {
      await server.close();
    }
  });
});
