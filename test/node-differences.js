/**
 * The tests whose outcome can differ between Node versions. `.ci/run` runs the whole suite on
 * Node 24 (the recommended Node) and only these on the machine's older Node (Node 20), after
 * `npm ci`. test/ci/node-differences.test.ts keeps this list honest.
 */
module.exports = [
  // Node 22+ answers a header flood with 431; Node 20 drops headers past maxHeadersCount.
  { path: 'test/reliability/slow-clients.test.ts', why: 'maxHeadersCount / 431 branch' },
  // workersReusePort: SO_REUSEPORT from Node 22.12 / 23.1; Node 20 shares the primary's socket.
  { path: 'test/e2e/workers-load-sharing.test.ts', why: 'reusePort branch (reuse-port.ts)' },
  // The WORKERS paths: on Node 20 the workers share the primary's socket (no reusePort), so every
  // WORKERS test takes the other listening path there.
  { path: 'test/e2e/workers.test.ts', why: 'WORKERS without reusePort (cluster round robin)' },
  { path: 'test/e2e/workers-link-governance.test.ts', why: 'WORKERS without reusePort' },
  // Recycled connections under load: node:http2's GOAWAY handling under @grpc/grpc-js.
  { path: 'test/grpc/well-behaved-load.test.ts', why: 'node:http2 GOAWAY under load' },
  // npm start's fast start: the build check and the start on this Node.
  { path: 'test/project/start-script.test.ts', why: 'npm start on this Node' },
  // Packs and installs the package with this Node's npm; the engines field and install steps.
  { path: 'test/package/install.test.ts', why: 'npm install and engines on this Node' },
  // require/import of the entry points: module resolution changes between Node versions.
  { path: 'test/package/entry-points.test.ts', why: 'CommonJS/ES module resolution' },
  // The CLI run as `nobody` with this Node: lmdb's native addon and node_modules access.
  { path: 'test/storage/lmdb-owner-only.test.ts', why: 'another user, lmdb native addon' },
  // Raw HTTP/1.1 bytes: the answers come from this Node's llhttp parser.
  { path: 'test/http/parser-answers.test.ts', why: "Node's HTTP parser (llhttp)" },
  // Raw HTTP/2 frames and settings: node:http2 (under @grpc/grpc-js) differs between Nodes.
  { path: 'test/grpc/concurrent-streams.test.ts', why: 'node:http2 stream limits' },
  { path: 'test/grpc/connection-age.test.ts', why: 'node:http2 GOAWAY handling' },
  { path: 'test/grpc/hpack-decoder.test.ts', why: 'node:http2 HPACK decoder' },
  { path: 'test/grpc/keepalive-enforcement.test.ts', why: 'node:http2 PING handling' },
  // The README's Node client example run as printed: ES module resolution of this Node.
  { path: 'test/grpc/readme-client-example.test.ts', why: 'ES module resolution' },
];
