/**
 * What one client may hold on the gRPC port, and for how long. Each is a setting of the gateway
 * (`grpc-config.ts`, GRPC_*), with these defaults; gateway-grpc/README.md describes them.
 */
export interface GrpcConnectionLimits {
  /**
   * From accepting a connection to its HTTP/2 preface and its first call's headers. Without the
   * preface by then the socket is destroyed; with it but no call, the connection is closed with a
   * GOAWAY (gRPC core's handshake timeout, for a connection that never becomes useful).
   */
  handshakeTimeoutMs: number;
  /**
   * From a call's headers to its complete request (each message, and the end of the request),
   * and from one request message to the next on a streaming call. A call whose request stops
   * arriving is ended with DEADLINE_EXCEEDED (CANCELLED once the server has answered headers)
   * and its stream reset, releasing what it held.
   */
  messageTimeoutMs: number;
  /** A connection without a call for this long is closed with a GOAWAY (grpc-js's `grpc.max_connection_idle_ms`); 0: never. */
  maxConnectionIdleMs: number;
  /**
   * A connection is told to go away (GOAWAY) after this long, ±10% (grpc-js's
   * `grpc.max_connection_age_ms`), so no client holds one for ever; 0: never.
   */
  maxConnectionAgeMs: number;
  /** After that GOAWAY, how long running calls may go on before the connection is cut. */
  maxConnectionAgeGraceMs: number;
  /**
   * The shortest period between a client's keepalive pings the server accepts while the client has
   * calls open (grpc-go's EnforcementPolicy.MinTime); a quicker ping is a strike. 0: any rate.
   */
  keepaliveMinTimeMs: number;
  /**
   * Whether a client may ping while it has no call open (PermitWithoutStream). When not, a
   * second ping without a call within two hours is a strike.
   */
  keepalivePermitWithoutCalls: boolean;
  /**
   * Strikes allowed; the next one closes the connection with GOAWAY ENHANCE_YOUR_CALM
   * `too_many_pings` (grpc-js clients then ping half as often). A call starting clears them.
   */
  maxPingStrikes: number;
  /**
   * Open connections one client address may hold; further ones are closed at once. gRPC clients
   * multiplex their calls over one or a few connections, so a cap costs them nothing. 0: no cap.
   */
  maxConnectionsPerAddress: number;
}

export const GRPC_CONNECTION_DEFAULTS: Readonly<GrpcConnectionLimits> = {
  handshakeTimeoutMs: 10_000,
  messageTimeoutMs: 10_000,
  maxConnectionIdleMs: 300_000,
  maxConnectionAgeMs: 1_800_000,
  maxConnectionAgeGraceMs: 30_000,
  keepaliveMinTimeMs: 300_000,
  keepalivePermitWithoutCalls: false,
  maxPingStrikes: 2,
  maxConnectionsPerAddress: 100,
};
