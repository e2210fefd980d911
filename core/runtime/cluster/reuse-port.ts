import { createServer, type AddressInfo, type ListenOptions } from 'node:net';

/**
 * Whether WORKERS workers each bind a listening socket of their own on the shared port, with
 * SO_REUSEPORT (node's `reusePort`, from 22.12 and 23.1; Linux hashes each new connection over
 * the sockets, so the workers get even shares). Elsewhere (Node 20, or not Linux, where the option
 * fails or spreads nothing) the workers accept from one socket the primary shares with them, and
 * whichever worker is quickest takes a burst of connections: often one takes nearly all.
 */
export function workersReusePort(
  nodeVersion: string = process.versions.node,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform !== 'linux') return false;
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/**
 * How a server binds its port: with `reusePort`, a socket of this process's own (`exclusive`:
 * not the cluster primary's shared one) that other processes of this user may bind beside it.
 * `reusePort` is not in Node 20's types; that Node is never asked to use it (workersReusePort).
 */
export function listenOptions(port: number, host: string, reusePort = false): ListenOptions {
  return reusePort
    ? ({ port, host, exclusive: true, reusePort: true } as ListenOptions)
    : { port, host };
}

/**
 * Before the workers bind a port with SO_REUSEPORT, the primary binds it alone for a moment: a
 * port another service holds (a second shortlink started on the same port above all, which
 * SO_REUSEPORT would otherwise let join and take half the connections) is refused here, as one
 * process is refused, and port 0 becomes the one free port every worker then binds. Resolves with
 * that port; rejects with the bind's error (EADDRINUSE).
 */
export function reservePort(host: string, port: number): Promise<number> {
  const probe = createServer();
  return new Promise<number>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => {
      const bound = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(bound));
    });
  });
}
