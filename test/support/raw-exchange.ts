import { connect } from 'node:net';

/**
 * Sends `head` as is on a new connection to 127.0.0.1:`port` and resolves with everything the
 * server wrote (as latin1) once it closed the connection, or once `timeoutMs` passed.
 */
export function rawExchange(port: number, head: string, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}
