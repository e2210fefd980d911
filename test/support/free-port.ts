import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports are picked below the kernel's ephemeral range. A port the kernel handed out for `listen(0)`
 * and took back can be handed out again at once, to this process's next `listen(0)` or to any
 * process's outgoing connection (Redis, MongoDB, a fetch); a test that binds it a moment later then
 * fails with EADDRINUSE. Below the range, only another caller of freePort can take it.
 */
const LOWEST = 10_000;
const handedOut = new Set<number>();

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start >= 30_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const highest = ephemeralRangeStart() - 1;

function bindable(port: number, host: string): Promise<boolean | 'no-such-address'> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? false : 'no-such-address');
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when nothing listens on the port, on IPv4 or IPv6 (the wildcard addresses cover both). */
async function nothingListensOn(port: number): Promise<boolean> {
  const onBoth = await bindable(port, '::');
  if (onBoth !== 'no-such-address') return onBoth;
  return (await bindable(port, '0.0.0.0')) === true;
}

/**
 * A TCP port nothing listens on right now, outside the ephemeral range and never handed out twice
 * in this process (another process may still take it before the caller binds it). With
 * `companionOffset`, port + offset is free and outside the range too (a Redis Cluster node's bus).
 */
export async function freePort(companionOffset = 0): Promise<number> {
  const top = highest - companionOffset;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (top - LOWEST + 1));
    const ports = companionOffset ? [port, port + companionOffset] : [port];
    if (ports.some((each) => handedOut.has(each))) continue;
    if ((await Promise.all(ports.map(nothingListensOn))).every(Boolean)) {
      for (const each of ports) handedOut.add(each);
      return port;
    }
  }
  throw new Error(`no free port between ${LOWEST} and ${top} after 200 tries`);
}
