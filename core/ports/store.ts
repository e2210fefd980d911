import type { IdSequence } from './id-sequence';
import type { IdempotencyStore } from './idempotency-store';
import type { IdentityStore } from './identity-store';
import type { LinkStore } from './link-store';

/** Everything that keeps state, from one backend (the embedded memory store, or MongoDB). */
export interface Store {
  readonly kind: string;
  readonly identities: IdentityStore;
  readonly links: LinkStore;
  readonly ids: IdSequence;
  /** Idempotency-key records (retry-safe creation). */
  readonly idempotency: IdempotencyStore;
  /** Resolves when the backend answers; rejects (BackendUnavailableError) otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
