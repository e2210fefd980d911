import { status, type Metadata } from '@grpc/grpc-js';
import fc from 'fast-check';
import { ErrorCode, reasonOf, type ErrorCodeNumber } from '../../core';
import { ERROR_CODE_METADATA, GRPC_STATUS_BY_REASON } from '../../gateway-grpc';
import {
  CreateShortLinkRequest,
  CreateShortLinkResponse,
  type ShortLinkServiceClient,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { outcomeOf, type CallOutcome } from '../support/grpc-call';
import { grpcClient, grpcCreate } from '../support/grpc-client';
import { authorizationMetadata } from '../support/grpc-metadata';
import { canForceGc, settledHeapUsed } from '../support/heap';
import { hostileString } from '../support/hostile-requests';
import { startTestService, UNLIMITED, type TestService } from '../support/in-process-service';

const CREATE_METHOD = '/shortlink.v1.ShortLinkService/CreateShortLink';
const MAX_MESSAGE_BYTES = 64 * 1024; // the gateway's receive limit

/** CreateShortLink with exactly these bytes as the message, valid protobuf or not. */
function rawCreate(
  client: ShortLinkServiceClient,
  bytes: Buffer,
  metadata: Metadata,
): Promise<CallOutcome<Buffer>> {
  return outcomeOf<Buffer>((callback) =>
    client.makeUnaryRequest<Buffer, Buffer>(
      CREATE_METHOD,
      (message) => message,
      (message) => message,
      bytes,
      metadata,
      { deadline: Date.now() + 60_000 },
      callback,
    ),
  );
}

function decodes(bytes: Buffer): boolean {
  try {
    CreateShortLinkRequest.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Hostile messages through the real gRPC server: every failure carries the contract's code in
 * its trailers with the gRPC status that code maps to, never INTERNAL or UNKNOWN; only a success
 * stores a link.
 */
describe('gRPC gateway under hostile messages', () => {
  let t: TestService;
  let client: ShortLinkServiceClient;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    t = await startTestService(UNLIMITED);
    client = grpcClient(t.service.grpc.port);
  });
  afterAll(async () => {
    client.close();
    await t.service.shutdown();
  });

  /** Checks one outcome against the contract; returns true when it was a success. */
  function checkOutcome(outcome: CallOutcome<unknown>, messageBytes: number): boolean {
    const { code, metadata, details } = outcome.status;
    const describe = () => `status ${code} (${details})`;
    if (code === status.OK) return true;
    const errorCode = metadata.get(ERROR_CODE_METADATA)[0];
    if (errorCode === undefined) {
      // The transport's own limit, before the gateway: the only answer without a code.
      if (code === status.RESOURCE_EXHAUSTED && messageBytes > MAX_MESSAGE_BYTES) return false;
      throw new Error(`no ${ERROR_CODE_METADATA} on ${describe()}`);
    }
    const reason = reasonOf(Number(errorCode) as ErrorCodeNumber);
    if (code !== GRPC_STATUS_BY_REASON[reason]) throw new Error(`${reason} as ${describe()}`);
    if (code === status.INTERNAL || code === status.UNKNOWN) throw new Error(describe());
    return false;
  }

  function expectStoredOnlyOnSuccess(success: boolean, before: number): void {
    const stored = t.store.links.size - before;
    if (stored !== (success ? 1 : 0)) throw new Error(`stored ${stored} (success: ${success})`);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  }

  const field = (valid: fc.Arbitrary<string>) =>
    fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostileString, weight: 1 });

  it('answers generated hostile messages by the mapping and stores only successes', async () => {
    const request = fc.record({
      organizationKey: field(fc.constant(t.demo.organizationKey)),
      urlGroupId: field(fc.constant(t.demo.urlGroupId)),
      url: field(fc.webUrl({ withQueryParameters: true })),
      alias: field(fc.oneof(fc.constant(''), fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/))),
      redirectType: fc.oneof(
        fc.constantFrom(0, 301, 302, 303, 307, 308),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      ),
    });
    const authorization = fc.oneof(
      { weight: 8, arbitrary: fc.constant(t.authorization) },
      fc.constantFrom(undefined, '', 'Bearer', 'Bearer x', `bearer ${t.demo.token}`, 'Basic a'),
    );
    let successes = 0;
    await fc.assert(
      fc.asyncProperty(request, authorization, async (message, auth) => {
        const before = t.store.links.size;
        const outcome = await grpcCreate(client, message, authorizationMetadata(auth));
        const bytes = CreateShortLinkRequest.encode(message).finish().length;
        const success = checkOutcome(outcome, bytes);
        if (success) {
          successes += 1;
          const link = outcome.response!.shortLink!;
          const stored = await t.store.links.findByAlias(link.domain, link.alias);
          if (stored?.id !== link.id) throw new Error('the answered link is not the stored one');
        }
        expectStoredOnlyOnSuccess(success, before);
      }),
      { numRuns: 250 },
    );
    expect(successes).toBeGreaterThan(20);
  });

  it('answers random bytes that decode as a message by the mapping', async () => {
    const bytes = fc
      .oneof(
        fc.uint8Array({ maxLength: 200 }),
        // A valid message with random bytes after it: unknown fields, or garbage.
        fc.uint8Array({ maxLength: 40 }).map((tail) =>
          Buffer.concat([
            CreateShortLinkRequest.encode(
              CreateShortLinkRequest.fromPartial({
                organizationKey: t.demo.organizationKey,
                urlGroupId: t.demo.urlGroupId,
                url: 'https://example.com/raw',
              }),
            ).finish(),
            tail,
          ]),
        ),
      )
      .map((array) => Buffer.from(array))
      .filter(decodes);
    await fc.assert(
      fc.asyncProperty(bytes, async (message) => {
        const before = t.store.links.size;
        const outcome = await rawCreate(client, message, authorizationMetadata(t.authorization));
        const success = checkOutcome(outcome, message.length);
        if (success)
          expect(CreateShortLinkResponse.decode(outcome.response!).shortLink).toBeDefined();
        expectStoredOnlyOnSuccess(success, before);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses an oversized message and keeps serving', async () => {
    const before = t.store.links.size;
    const huge = CreateShortLinkRequest.fromPartial({
      organizationKey: t.demo.organizationKey,
      urlGroupId: t.demo.urlGroupId,
      url: `https://example.com/${'a'.repeat(MAX_MESSAGE_BYTES)}`,
    });
    const outcome = await grpcCreate(client, huge, authorizationMetadata(t.authorization));
    expect(outcome.status.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(t.store.links.size).toBe(before);
    const next = await grpcCreate(
      client,
      {
        organizationKey: t.demo.organizationKey,
        urlGroupId: t.demo.urlGroupId,
        url: 'https://example.com/after-huge',
      },
      authorizationMetadata(t.authorization),
    );
    expect(next.status.code).toBe(status.OK);
  });

  // grpc-js would answer INTERNAL for bytes its deserializer cannot decode; the gateway's
  // tolerant deserializer hands them to the core, which answers code 20 (INVALID_ARGUMENT).
  it('answers undecodable bytes with INVALID_ARGUMENT, not INTERNAL', async () => {
    const undecodable = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]); // length past the end
    expect(decodes(undecodable)).toBe(false);
    const before = t.store.links.size;
    const outcome = await rawCreate(client, undecodable, authorizationMetadata(t.authorization));
    expect(t.store.links.size).toBe(before);
    expect(outcome.status.code).toBe(status.INVALID_ARGUMENT);
    expect(outcome.status.metadata.get('shortlink-error-code')).toEqual([
      String(ErrorCode.BODY_INVALID),
    ]);
  });

  it('nothing is stored and the server keeps serving after undecodable bytes', async () => {
    const before = t.store.links.size;
    for (const bytes of fc.sample(fc.uint8Array({ minLength: 1, maxLength: 100 }), 200)) {
      const message = Buffer.from(bytes);
      if (decodes(message)) continue;
      const outcome = await rawCreate(client, message, authorizationMetadata(t.authorization));
      expect(outcome.status.code).not.toBe(status.OK);
      expect(outcome.status.code).not.toBe(status.UNKNOWN);
    }
    expect(t.store.links.size).toBe(before);
  });

  it('returns the heap to its level after a hostile run', async () => {
    const messages = fc.sample(
      fc.record({
        organizationKey: fc.constant(t.demo.organizationKey),
        urlGroupId: fc.constant(t.demo.urlGroupId),
        url: fc.constant(`https://example.com/${'p'.repeat(10_000)}`),
        alias: fc.constant('not valid'),
        pad: hostileString,
      }),
      { numRuns: 400, seed: 8 },
    );
    const run = async (batch: typeof messages) => {
      const queue = [...batch];
      const lane = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const { pad, ...message } = next;
          await grpcCreate(
            client,
            { ...message, alias: `${message.alias}${pad.slice(0, 10_000)}` },
            authorizationMetadata(t.authorization),
          );
        }
      };
      await Promise.all([lane(), lane(), lane(), lane()]);
    };
    await run(messages.slice(0, 50));
    const before = await settledHeapUsed();
    await run(messages.slice(50));
    const after = await settledHeapUsed();
    expect(after - before).toBeLessThan((canForceGc ? 3 : 64) * 1024 * 1024);
    // Seconds on an idle machine; minutes when other work shares the two cores.
  }, 120_000);
});
