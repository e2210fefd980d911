import { isSendableToken } from '../auth/bearer';
import { generateToken, hashSecret } from '../auth/secrets';
import { TokenTakenError } from '../errors/shortlink-error';
import type { Clock } from '../ports/clock';
import type { IdentityStore } from '../ports/identity-store';
import { NotFoundProvisioningError, ProvisioningError } from './provisioning-error';
import { secretHash } from './provisioning-input';
import { requireUser } from './required-records';

/** Issues a token for `userId`: a new one (returned once) or a given one / its hash. */
export async function issueToken(
  identities: IdentityStore,
  clock: Clock,
  userId: string,
  given: { token?: string; tokenHash?: string },
): Promise<{ token?: string; tokenHash: string }> {
  await requireUser(identities, userId);
  if (typeof given.token === 'string' && !isSendableToken(given.token)) {
    throw new ProvisioningError(
      `a token of user "${userId}" has characters that cannot be sent as "Bearer <token>"`,
    );
  }
  const { hash: tokenHash, generated } = secretHash(
    `a token of user "${userId}"`,
    given.token,
    given.tokenHash,
    generateToken,
  );
  try {
    await identities.saveToken({ tokenHash, userId, createdAt: clock.now() });
  } catch (error) {
    // The store keeps a token's first user: this user would get NOT_A_MEMBER with it.
    if (!(error instanceof TokenTakenError)) throw error;
    throw new ProvisioningError(`a token of user "${userId}" is already in use by another user`, {
      cause: error,
    });
  }
  return generated === undefined ? { tokenHash } : { token: generated, tokenHash };
}

/**
 * Revokes a token (given in clear, handled only as its hash): the store removes the hash, so
 * the token answers TOKEN_UNKNOWN from then on. Answers whose it was; an unknown token (never
 * issued, or revoked already) is refused and nothing is written.
 */
export async function revokeToken(
  identities: IdentityStore,
  token: string,
): Promise<{ userId: string }> {
  if (typeof token !== 'string' || token === '') {
    throw new ProvisioningError('no token given to revoke');
  }
  const userId = await identities.removeToken(hashSecret(token));
  if (userId === null) {
    throw new NotFoundProvisioningError(
      'no such token: it is unknown or revoked already; nothing was changed',
    );
  }
  return { userId };
}

/** Revokes every token of a user (one lost rather than leaked); answers how many. */
export async function revokeTokensOfUser(
  identities: IdentityStore,
  userId: string,
): Promise<number> {
  await requireUser(identities, userId);
  return identities.removeTokensOfUser(userId);
}
