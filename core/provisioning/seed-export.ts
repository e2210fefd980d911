import type { IdentitySnapshot } from '../ports/identity-store';
import type { Seed } from './seed-file';

/** A seed file holding everything in `snapshot`, with secrets as SHA-256 hashes only. */
export function seedFromSnapshot(snapshot: IdentitySnapshot): Seed {
  return {
    organizations: snapshot.organizations.map((org) => ({
      id: org.id,
      name: org.name,
      secret_key_sha256: org.keyHash,
      domain: org.domain,
      scheme: org.scheme,
      active: org.active,
      groups: snapshot.groups
        .filter((group) => group.organizationId === org.id)
        .map((group) => ({ api_id: group.apiId, name: group.name })),
    })),
    users: snapshot.users.map((user) => ({
      id: user.id,
      name: user.name,
      token_sha256s: snapshot.tokens.filter((t) => t.userId === user.id).map((t) => t.tokenHash),
      organizations: snapshot.memberships
        .filter((m) => m.userId === user.id)
        .map((m) => m.organizationId),
    })),
  };
}
