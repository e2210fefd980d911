import { status } from '@grpc/grpc-js';
import { BackendUnavailableError, createCore, ErrorCode } from '../../core';
import { createTestCore } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import { metadataText, startGrpc, validRequest } from '../support/grpc-fixture';

describe('gRPC ResolveShortLink while the store is unavailable', () => {
  it('answers UNAVAILABLE, code 23, with retry-after in the trailers, as CreateShortLink does', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'gone' }) as never);
    const store = failingStore(f.store, () => new BackendUnavailableError('down'), {
      parts: ['links'],
    });
    const grpc = await startGrpc(createCore({ ...f.core.deps, store }));
    try {
      const resolved = await grpc.resolve({ domain: f.domain, alias: 'gone' });
      expect(resolved.status.code).toBe(status.UNAVAILABLE);
      expect(metadataText(resolved.status.metadata, 'shortlink-error-code')).toBe(
        String(ErrorCode.BACKEND_UNAVAILABLE),
      );
      expect(metadataText(resolved.status.metadata, 'retry-after')).toBe('5');
      // Following needs no token, so there is no rate limit to report.
      expect(metadataText(resolved.status.metadata, 'x-ratelimit-limit')).toBeUndefined();

      const created = await grpc.create(validRequest(f), f.token);
      expect(created.status.code).toBe(status.UNAVAILABLE);
      expect(metadataText(created.status.metadata, 'retry-after')).toBe('5');
    } finally {
      await grpc.close();
    }
  });
});
