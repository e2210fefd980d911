import { Server, ServerCredentials, status, type sendUnaryData } from '@grpc/grpc-js';
import {
  LinkState,
  ShortLink,
  ShortLinkServiceService,
  type ShortLinkServiceServer,
} from '../../../gateway-grpc/generated/shortlink/v1/shortlink';
import { failChild, onStopRequest, tellParent } from '../support/child';
import { BENCH_DOMAIN } from '../support/credentials';

const ALIAS = 'abcdefg'; // as long as a generated alias

/**
 * The gRPC baseline: a bare @grpc/grpc-js server with the same generated service definition (so
 * the same message codecs) whose CreateShortLink echoes the request into a ShortLink of the
 * subject's shape and size.
 */
function unimplemented(callback: sendUnaryData<never>): void {
  callback({ code: status.UNIMPLEMENTED, details: 'not part of the baseline' });
}

async function main(): Promise<void> {
  let id = 0;
  const service: ShortLinkServiceServer = {
    createShortLink: (call, callback) => {
      id += 1;
      callback(null, {
        // The subject's answer: the spec's six fields and the state of a new link.
        shortLink: ShortLink.fromPartial({
          id,
          shortUrl: `https://${BENCH_DOMAIN}/${ALIAS}`,
          url: call.request.url,
          domain: BENCH_DOMAIN,
          alias: ALIAS,
          redirectType: call.request.redirectType || 301,
          state: LinkState.LINK_STATE_ACTIVE,
        }),
      });
    },
    resolveShortLink: (_call, callback) => callback(null, { shortLink: undefined }),
    // Not measured against a baseline.
    getShortLink: (_call, callback) => unimplemented(callback),
    listShortLinks: (_call, callback) => unimplemented(callback),
    disableShortLink: (_call, callback) => unimplemented(callback),
    enableShortLink: (_call, callback) => unimplemented(callback),
    updateShortLink: (_call, callback) => unimplemented(callback),
    listShortLinkHistory: (_call, callback) => unimplemented(callback),
    getShortLinkVisits: (_call, callback) => unimplemented(callback),
  };
  const server = new Server();
  server.addService(ShortLinkServiceService, service);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  onStopRequest(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  await tellParent({ type: 'ready', grpcPort: port });
}

main().catch(failChild);
