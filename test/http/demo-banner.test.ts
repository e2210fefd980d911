import { connect, createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '../../core/runtime';
import { demoBanner } from '../../gateway-http/demo-banner';

const demo = {
  organizationKey: 'slorg_key',
  token: 'slpat_token',
  urlGroupId: '1',
  domain: 'localhost:8080',
};

/** The host:port the banner's grpcurl line dials, and its curl's base URL. */
function addresses(host: string, port: number) {
  const banner = demoBanner(demo, loadConfig({ HOST: host, DATA_DIR: ':memory:' }), 8080, port);
  const grpc = /^ {2}(\S+) shortlink\.v1\.ShortLinkService\/CreateShortLink$/m.exec(banner)?.[1];
  const curl = /^curl -s -X POST (\S+)\/api\/create/m.exec(banner)?.[1];
  return { grpc, curl };
}

/** Whether a TCP connection to `address` (`host:port`, an IPv6 host in brackets) is accepted. */
function accepts(address: string): Promise<boolean> {
  const { hostname, port } = new URL(`tcp://${address}`);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe("the demo banner's commands dial the address the server is bound to (HOST)", () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'http://localhost:8080'],
    ['::1', '[::1]', 'http://[::1]:8080'],
    ['0.0.0.0', '127.0.0.1', 'http://localhost:8080'],
    ['::', '127.0.0.1', 'http://localhost:8080'],
  ])('HOST=%s: grpcurl dials %s, which a server bound there accepts', async (host, dial, curl) => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const shown = addresses(host, port);
      expect(shown).toEqual({ grpc: `${dial}:${port}`, curl });
      await expect(accepts(shown.grpc as string)).resolves.toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
