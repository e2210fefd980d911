import type { Server, Socket } from 'node:net';

/**
 * Closes a client's connections beyond `limit` as soon as they are accepted, so one address
 * cannot use up the process's file descriptors. Both gateways use it (REST's
 * MAX_CONNECTIONS_PER_ADDRESS, gRPC's GRPC_MAX_CONNECTIONS_PER_ADDRESS); it listens to the
 * server's `connection` event, so a listener added after it sees a refused socket destroyed.
 * Counted per process: with WORKERS, each worker counts its own connections.
 */
export function limitConnectionsPerAddress(server: Server, limit: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
