import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/**
 * How long a connection the server has finished with waits for the client to close its side.
 * Closing at once, with data from the client unread, would reset the connection, and a reset
 * can discard the server's last answers before the client has read them.
 */
const LINGER_MS = 2000;

/**
 * A client's socket as node's HTTP/2 session reads it, with each chunk the client sent shown to
 * `observe` first, unchanged. Node reads a plain socket natively, where no JavaScript sees the
 * bytes; given this stream it reads through JavaScript instead. When `observe` throws, the
 * connection is destroyed before the chunk reaches the session. Once the session has ended its
 * side, what the client still sends is read and dropped until it closes the connection, for
 * LINGER_MS at most.
 */
export class ObservedSocket extends Duplex {
  private finished = false;

  constructor(
    private readonly socket: Socket,
    observe: (chunk: Buffer) => void,
  ) {
    super();
    socket.on('data', (chunk: Buffer) => {
      if (this.finished) return;
      try {
        observe(chunk);
      } catch {
        socket.destroy();
        return;
      }
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.socket.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.finished = true;
    this.socket.resume();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.socket.destroy();
    done(error);
  }
}
