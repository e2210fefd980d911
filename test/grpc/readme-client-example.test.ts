import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { ErrorInfo } from '../../gateway-grpc/generated/google/rpc/error_details';
import { Status } from '../../gateway-grpc/generated/google/rpc/status';
import {
  CreateShortLinkRequest,
  ShortLinkServiceClient,
  type ShortLink,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { startGrpc, type GrpcFixture } from './grpc-fixture';

// The Node client example of gateway-grpc/README.md ("Calling it from a Node service"), verbatim
// apart from the import paths and the address (the README uses npm start's 127.0.0.1:50051).
function example(address: string) {
  const client = new ShortLinkServiceClient(address, credentials.createInsecure());

  function createShortLink(
    token: string,
    request: Partial<CreateShortLinkRequest>,
  ): Promise<ShortLink> {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    return new Promise((resolve, reject) => {
      client.createShortLink(
        CreateShortLinkRequest.fromPartial(request), // unset fields: "", 0 (= absent)
        metadata,
        { deadline: Date.now() + 5000 },
        (error, response) => (error ? reject(error) : resolve(response.shortLink!)),
      );
    });
  }

  /** The numeric code and the reason of a failed call. */
  function describeError(error: ServiceError) {
    const [code] = error.metadata.get('shortlink-error-code');
    const [details] = error.metadata.get('grpc-status-details-bin');
    const status = Status.decode(details as Buffer);
    const info = ErrorInfo.decode(status.details[0]!.value);
    return {
      grpcStatus: error.code,
      code: Number(code),
      reason: info.reason,
      messages: error.details,
    };
  }

  return { client, createShortLink, describeError };
}

describe('the README example of a Node gRPC client', () => {
  let f: CoreFixture;
  let grpc: GrpcFixture;

  beforeAll(async () => {
    f = await createTestCore();
    grpc = await startGrpc(f.core);
  });
  afterAll(() => grpc.close());

  it('creates a link, and reads a failure as the spec code and the ErrorInfo reason', async () => {
    const { client, createShortLink, describeError } = example(grpc.address);
    try {
      const link = await createShortLink(f.token, {
        organizationKey: f.organizationKey,
        urlGroupId: '1',
        url: 'https://example.com/a/very/long/path',
        alias: 'readme',
      });
      expect(link.shortUrl).toBe(`https://${f.domain}/readme`);

      const failure = await createShortLink(f.token, {
        organizationKey: f.organizationKey,
        urlGroupId: '1',
        url: 'https://example.com/other',
        alias: 'readme',
      }).catch((error: ServiceError) => error);
      expect(describeError(failure as ServiceError)).toEqual({
        grpcStatus: status.ALREADY_EXISTS,
        code: 15,
        reason: 'ALIAS_TAKEN',
        messages: 'This alias is already taken on this link domain.',
      });
    } finally {
      client.close();
    }
  });
});
