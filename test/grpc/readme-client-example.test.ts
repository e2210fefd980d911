import { ErrorCode } from '../../core';
import { status, type ServiceError } from '@grpc/grpc-js';
import type {
  CreateShortLinkRequest,
  ShortLink,
  ShortLinkServiceClient,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { readmeCodeBlock, runExample } from '../support/readme-code';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';

/** The Node client example of gateway-grpc/README.md, run as printed against a test server. */
const printed = readmeCodeBlock('gateway-grpc/README.md', 'Calling it from a Node service');

/** The example imports the build (dist/); here its imports reach the sources it is built from. */
const GENERATED_SOURCES = Object.fromEntries(
  ['google/rpc/error_details', 'google/rpc/status', 'shortlink/v1/shortlink'].map((file) => [
    `./dist/gateway-grpc/generated/${file}.js`,
    `gateway-grpc/generated/${file}`,
  ]),
);

interface ExampleApi {
  client: ShortLinkServiceClient;
  createShortLink(token: string, request: Partial<CreateShortLinkRequest>): Promise<ShortLink>;
  describeError(error: ServiceError): unknown;
}

/** Runs the example (its own create included) and resolves with what it printed. */
async function runPrinted(address: string) {
  let printedLine!: (line: unknown) => void;
  const output = new Promise<unknown>((resolve) => (printedLine = resolve));
  const log = jest
    .spyOn(console, 'log')
    .mockImplementation((line: unknown) => printedLine({ log: line }));
  const error = jest
    .spyOn(console, 'error')
    .mockImplementation((line: unknown) => printedLine({ error: line }));
  try {
    const api = (await runExample(
      printed,
      { modules: GENERATED_SOURCES, replace: [["'127.0.0.1:50051'", JSON.stringify(address)]] },
      require,
    )) as unknown as ExampleApi;
    return { api, output: await output };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('the gateway-grpc/README.md example of a Node gRPC client', () => {
  let f: CoreFixture;
  let grpc: GrpcFixture;

  beforeAll(async () => ({ f, grpc } = await startGrpcOnTestCore()));
  afterAll(() => grpc.close());

  it('creates the link the example asks for, and reads a failure as the code and the ErrorInfo reason', async () => {
    process.env.SHORTLINK_TOKEN = f.token;
    process.env.SHORTLINK_ORGANIZATION_KEY = f.organizationKey;
    const { api, output } = await runPrinted(grpc.address);
    const { client, createShortLink, describeError } = api;
    try {
      expect(output).toEqual({
        log: expect.stringMatching(new RegExp(`^https://${f.domain}/[0-9A-Za-z]{7}$`)),
      });

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
        code: ErrorCode.ALIAS_TAKEN,
        reason: 'ALIAS_TAKEN',
        messages: 'This alias is already taken on this link domain.',
      });
    } finally {
      client.close();
      delete process.env.SHORTLINK_TOKEN;
      delete process.env.SHORTLINK_ORGANIZATION_KEY;
    }
  });
});
