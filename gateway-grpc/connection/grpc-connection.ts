import { constants, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import type { Logger } from '../../core';
import type { GrpcConnectionLimits } from './connection-limits';
import { DroppedKeyValues } from './dropped-key-values';
import { boundRequestArrival } from './message-deadline';
import { ObservedSocket } from './observed-socket';
import { PingPolicy } from './ping-policy';

/** The GOAWAY debug data gRPC clients read as "ping less often" (grpc-go, gRPC core, grpc-js). */
const TOO_MANY_PINGS = Buffer.from('too_many_pings');

/**
 * One client connection of the gRPC port, from the accepted socket on: what the client sent
 * (through `transport`, which node's HTTP/2 session reads), the handshake deadline, keepalive
 * enforcement, and each call's request deadline. grpc-js serves the session; `attach` and
 * `callStarted` are told of its session and streams.
 */
export class GrpcConnection {
  /** What node's HTTP/2 session reads and writes: the socket, each chunk read by `keys` first. */
  readonly transport: ObservedSocket;
  private readonly keys: DroppedKeyValues;
  private readonly pings: PingPolicy;
  private readonly handshake: NodeJS.Timeout;
  private session: ServerHttp2Session | undefined;
  private prefaceSeen = false;

  constructor(
    private readonly socket: Socket,
    private readonly limits: GrpcConnectionLimits,
    private readonly logger: Logger,
  ) {
    this.pings = new PingPolicy(limits);
    this.keys = new DroppedKeyValues({
      preface: () => {
        this.prefaceSeen = true;
      },
      request: () => clearTimeout(this.handshake),
    });
    this.transport = new ObservedSocket(socket, (chunk) => this.keys.write(chunk));
    this.handshake = setTimeout(() => this.handshakeExpired(), limits.handshakeTimeoutMs);
    this.handshake.unref();
    socket.once('close', () => clearTimeout(this.handshake));
  }

  /** grpc-js's session for this connection, made as the connection was handed to it. */
  attach(session: ServerHttp2Session): void {
    this.session = session;
    // Node reads the session's address from the socket it wraps `transport` in, which has no
    // address of its own; grpc-js's getPeer() (auth-failure budget, call log) reads it there.
    const { remoteAddress, remotePort, remoteFamily } = this.socket;
    Object.assign(session.socket, {
      _peername: { address: remoteAddress, port: remotePort, family: remoteFamily },
    });
    session.on('ping', () => {
      if (this.pings.pinged()) this.tooManyPings(session);
    });
  }

  /** A call (stream) to `path` opened on this connection, after grpc-js took it. */
  callStarted(stream: ServerHttp2Stream, path: string | undefined): void {
    this.pings.callStarted();
    stream.once('close', () => this.pings.callEnded());
    boundRequestArrival(stream, this.limits.messageTimeoutMs, () =>
      this.logger.info(
        { peer: this.peer(), method: path },
        'call ended: its request did not arrive in time',
      ),
    );
  }

  /** The `idempotency-key` values of a request as sent, when node dropped one (see DroppedKeyValues). */
  droppedKeyValues(streamId: number): string[] | undefined {
    return this.keys.take(streamId);
  }

  private handshakeExpired(): void {
    if (this.socket.destroyed) return;
    this.logger.debug(
      { peer: this.peer(), preface: this.prefaceSeen },
      'connection closed: no call within the handshake timeout',
    );
    if (this.prefaceSeen && this.session && !this.session.destroyed) this.session.close();
    else this.socket.destroy();
  }

  private tooManyPings(session: ServerHttp2Session): void {
    this.logger.info({ peer: this.peer() }, 'connection closed: too many pings');
    if (session.destroyed) return;
    // Node writes this GOAWAY before its own (NO_ERROR) and ends the connection.
    session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, 0, TOO_MANY_PINGS);
    session.destroy();
  }

  private peer(): string {
    return `${this.socket.remoteAddress ?? ''}:${this.socket.remotePort ?? ''}`;
  }
}
