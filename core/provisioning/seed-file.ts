import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { hashSecret, MIN_CHOSEN_SECRET_LENGTH, SECRET_HASH_PATTERN } from '../auth/secrets';
import { parseSeedText } from './seed-json';
import type { Provisioner } from './provisioner';
import { ProvisioningError } from './provisioning-error';

const sha256Hex = z.string().regex(SECRET_HASH_PATTERN);
// The message names the rule; zod's path names the field; the value itself is never repeated.
const chosenSecret = z
  .string()
  .min(MIN_CHOSEN_SECRET_LENGTH, `must have at least ${MIN_CHOSEN_SECRET_LENGTH} characters`);

/**
 * The seed file (core/provisioning/README.md). Besides plain `secret_key` and `tokens`, it accepts their
 * SHA-256 hashes (`secret_key_sha256`, `token_sha256s`): what the admin CLI writes, so a seed file
 * need not hold secrets.
 */
const seedSchema = z.object({
  organizations: z
    .array(
      z
        .object({
          id: z.string().min(1),
          name: z.string().optional(),
          secret_key: chosenSecret.optional(),
          secret_key_sha256: sha256Hex.optional(),
          domain: z.string().min(1),
          scheme: z.enum(['http', 'https']).optional(),
          active: z.boolean().optional(),
          groups: z
            .array(
              z.object({
                api_id: z.union([z.string().min(1), z.number().int().nonnegative()]),
                name: z.string().optional(),
              }),
            )
            .default([]),
        })
        .refine((o) => (o.secret_key === undefined) !== (o.secret_key_sha256 === undefined), {
          message: 'give exactly one of secret_key and secret_key_sha256',
        }),
    )
    .default([]),
  users: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().optional(),
        tokens: z.array(chosenSecret).default([]),
        token_sha256s: z.array(sha256Hex).default([]),
        organizations: z.array(z.string().min(1)).default([]),
      }),
    )
    .superRefine(refuseSharedTokens)
    .default([]),
});

/**
 * One token for two users: a store keeps a token's first user, so the second would be refused
 * (NOT_A_MEMBER) with a token its seed gave it. Compared by hash, in clear or not; never repeated.
 */
function refuseSharedTokens(
  users: Array<{ id: string; tokens: string[]; token_sha256s: string[] }>,
  ctx: z.RefinementCtx,
): void {
  const firstHolders = new Map<string, { userId: string; where: string }>();
  users.forEach((user, index) => {
    const given = [
      ...user.tokens.map((token, i) => ({ hash: hashSecret(token), field: 'tokens', i })),
      ...user.token_sha256s.map((hash, i) => ({ hash, field: 'token_sha256s', i })),
    ];
    for (const { hash, field, i } of given) {
      const holder = firstHolders.get(hash);
      if (!holder) {
        firstHolders.set(hash, { userId: user.id, where: `users.${index}.${field}.${i}` });
      } else if (holder.userId !== user.id) {
        ctx.addIssue({
          code: 'custom',
          path: [index, field, i],
          message: `the same token as user "${holder.userId}" (${holder.where})`,
        });
      }
    }
  });
}

export type Seed = z.input<typeof seedSchema>;

function parseSeed(value: unknown, source = 'seed'): z.output<typeof seedSchema> {
  const parsed = seedSchema.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ProvisioningError(`${source} is invalid: ${where}`);
  }
  return parsed.data;
}

/**
 * Applies a seed idempotently: organizations and groups first, then users, tokens, members. It is
 * rehearsed first (Provisioner.rehearsal), so that a seed refused for any entry (a link domain,
 * a key or a token held by another record, a user of an unknown organization) writes nothing,
 * rather than the entries before it. A change another process makes between the rehearsal and
 * the apply can still stop the apply partway; a seed is applied as an upsert at every start.
 */
export async function applySeed(provisioner: Provisioner, value: unknown, source = 'seed') {
  const seed = parseSeed(value, source);
  await applyParsedSeed(provisioner.rehearsal(), seed, source);
  await applyParsedSeed(provisioner, seed, source);
  return {
    organizations: seed.organizations.length,
    users: seed.users.length,
  };
}

async function applyParsedSeed(
  provisioner: Provisioner,
  seed: z.output<typeof seedSchema>,
  source: string,
): Promise<void> {
  for (const [index, org] of seed.organizations.entries()) {
    await naming(source, `organizations.${index}`, async () => {
      await provisioner.saveOrganization({
        id: org.id,
        ...(org.name !== undefined && { name: org.name }),
        domain: org.domain,
        ...(org.scheme !== undefined && { scheme: org.scheme }),
        ...(org.active !== undefined && { active: org.active }),
        ...(org.secret_key !== undefined && { secretKey: org.secret_key }),
        ...(org.secret_key_sha256 !== undefined && { secretKeyHash: org.secret_key_sha256 }),
      });
      for (const group of org.groups) {
        await provisioner.saveGroup({
          organizationId: org.id,
          apiId: String(group.api_id),
          ...(group.name !== undefined && { name: group.name }),
        });
      }
    });
  }
  for (const [index, user] of seed.users.entries()) {
    await naming(source, `users.${index}`, async () => {
      await provisioner.saveUser({
        id: user.id,
        ...(user.name !== undefined && { name: user.name }),
        organizations: user.organizations,
      });
      for (const token of user.tokens) await provisioner.issueToken(user.id, { token });
      for (const tokenHash of user.token_sha256s) {
        await provisioner.issueToken(user.id, { tokenHash });
      }
    });
  }
}

/**
 * Runs one entry's writes; a refusal names the seed and the entry, as the schema's refusals do
 * (`seed file seed.json is refused: users.1: no organization "nosuchorg"`). A store failure
 * is left as it is: it is about the store, not the file.
 */
async function naming(source: string, entry: string, apply: () => Promise<void>): Promise<void> {
  try {
    await apply();
  } catch (error) {
    if (!(error instanceof ProvisioningError)) throw error;
    throw new ProvisioningError(`${source} is refused: ${entry}: ${error.message}`, {
      cause: error,
    });
  }
}

export async function loadSeedFile(provisioner: Provisioner, path: string) {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ProvisioningError(`cannot read seed file ${path}: ${(error as Error).message}`);
  }
  return applySeed(provisioner, parseSeedText(text, `seed file ${path}`), `seed file ${path}`);
}
