import { Server, ServerCredentials } from '@grpc/grpc-js';
import {
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
async function main(): Promise<void> {
  let id = 0;
  const service: ShortLinkServiceServer = {
    createShortLink: (call, callback) => {
      id += 1;
      callback(null, {
        shortLink: {
          id,
          shortUrl: `https://${BENCH_DOMAIN}/${ALIAS}`,
          url: call.request.url,
          domain: BENCH_DOMAIN,
          alias: ALIAS,
          redirectType: call.request.redirectType || 301,
        },
      });
    },
    resolveShortLink: (_call, callback) => callback(null, { shortLink: undefined }),
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
