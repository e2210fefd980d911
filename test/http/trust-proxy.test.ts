import { Metadata } from '@grpc/grpc-js';
import { createCore } from '../../core';
import { compileTrustProxy, ConfigError } from '../../core/runtime';
import { loadGrpcConfig } from '../../gateway-grpc';
import { loadHttpConfig } from '../../gateway-http/http-config';
import {
  startGrpc,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { startHttp } from '../support/http-fixture';
import { startInProcessService } from '../support/in-process-service';

describe('TRUST_PROXY', () => {
  it('trusts a hop count or a list of addresses and subnets', () => {
    const oneHop = compileTrustProxy('1');
    expect([oneHop('198.51.100.1', 0), oneHop('198.51.100.1', 1)]).toEqual([true, false]);
    const subnets = compileTrustProxy('loopback, 10.0.0.0/8');
    expect([subnets('127.0.0.1', 0), subnets('10.1.2.3', 3), subnets('198.51.100.1', 0)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(compileTrustProxy('false')('127.0.0.1', 0)).toBe(false);
  });

  it.each(['true', 'TRUE', ' true '])(
    'refuses %j at start, saying what to give instead',
    (value) => {
      for (const load of [loadHttpConfig, loadGrpcConfig]) {
        const attempt = () => load({ TRUST_PROXY: value });
        expect(attempt).toThrow(ConfigError);
        expect(attempt).toThrow(/TRUST_PROXY=true is refused: give the number of proxies.*subnets/);
      }
    },
  );

  it('refuses an entry that is neither an address, a subnet nor a proxy-addr name', () => {
    expect(() => loadHttpConfig({ TRUST_PROXY: 'loopback, not-an-address' })).toThrow(
      /TRUST_PROXY.*not-an-address/,
    );
  });

  it('does not start the service with TRUST_PROXY=true', async () => {
    await expect(startInProcessService({ TRUST_PROXY: 'true' })).rejects.toThrow(
      /TRUST_PROXY=true is refused/,
    );
  });

  it('limits failed token checks per forwarded client address behind one trusted proxy', async () => {
    const server = await startHttp(createCore(), { trustProxy: '1' });
    try {
      // Through the fixture's client, which checks each answer against the OpenAPI document.
      const attempt = (forwardedFor: string) =>
        server
          .request({
            method: 'POST',
            path: '/api/create',
            headers: { authorization: 'Bearer wrong', 'x-forwarded-for': forwardedFor },
            json: {},
          })
          .then((answer) => answer.status);
      for (let i = 0; i < 30; i += 1) expect(await attempt('203.0.113.1')).toBe(401);
      expect(await attempt('203.0.113.1')).toBe(429);
      // What the client writes to the left of the proxy's entry changes nothing.
      expect(await attempt(`198.51.100.${Math.floor(Math.random() * 250)}, 203.0.113.1`)).toBe(429);
      expect(await attempt('203.0.113.2')).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('TRUST_PROXY on the gRPC gateway (x-forwarded-for metadata)', () => {
  /** Sends creates with a wrong token to `server`; each answers the contract code it got. */
  const guesser = (server: GrpcFixture, f: CoreFixture) => async (forwardedFor?: string) => {
    const metadata = new Metadata();
    metadata.set('authorization', 'Bearer wrong');
    if (forwardedFor !== undefined) metadata.set('x-forwarded-for', forwardedFor);
    const outcome = await server.create(validRequest(f), metadata);
    return Number(outcome.status.metadata.get('shortlink-error-code')[0]);
  };

  it('counts failures by the first untrusted forwarded address, as REST does', async () => {
    const { f, grpc: server } = await startGrpcOnTestCore({}, { trustProxy: '1' });
    const guess = guesser(server, f);
    try {
      for (let i = 0; i < 30; i += 1) expect(await guess('203.0.113.1')).toBe(11);
      expect(await guess('203.0.113.1')).toBe(19);
      expect(await guess('192.0.2.9, 203.0.113.1')).toBe(19);
      expect(await guess('203.0.113.2')).toBe(11);
      // The proxy itself, with no forwarded address, is its own client.
      expect(await guess()).toBe(11);
    } finally {
      await server.close();
    }
  });

  it('trusts listed proxy subnets and ignores the metadata from anyone else', async () => {
    const f = await createTestCore();
    const trusted = await startGrpc(f.core, { trustProxy: 'loopback' });
    const untrusted = await startGrpc(f.core, { trustProxy: '10.0.0.0/8' });
    const [viaTrusted, viaUntrusted] = [guesser(trusted, f), guesser(untrusted, f)];
    try {
      for (let i = 0; i < 30; i += 1) expect(await viaTrusted('198.51.100.5')).toBe(11);
      expect(await viaTrusted('198.51.100.5')).toBe(19);
      // 127.0.0.1 is no trusted proxy here: its forwarded addresses are not believed, so every
      // guess counts against 127.0.0.1, which has no failures yet.
      expect(await viaUntrusted('198.51.100.5')).toBe(11);
      expect(await viaUntrusted('198.51.100.6')).toBe(11);
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });

  it('without TRUST_PROXY counts the peer, whatever the metadata says', async () => {
    const { f, grpc: server } = await startGrpcOnTestCore();
    const guess = guesser(server, f);
    try {
      for (let i = 0; i < 30; i += 1) expect(await guess(`198.51.100.${i}`)).toBe(11);
      expect(await guess('198.51.100.200')).toBe(19);
    } finally {
      await server.close();
    }
  });
});
