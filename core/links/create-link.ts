import { authenticate } from '../auth/authenticate';
import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import { checkIdempotencyKey } from '../idempotency/idempotency-key';
import { idempotent, type Completion } from '../idempotency/idempotent';
import { ClaimLostError } from '../idempotency/pending-completion';
import { resolveGroup, type GroupContext } from '../organizations/resolve-group';
import { resolveOrganization } from '../organizations/resolve-organization';
import type { LinkRecord, NewLink, RedirectType } from '../ports/link-store';
import type { UrlVerdict } from '../ports/url-guard';
import { ProcedureBuilder } from '../procedure/procedure';
import { limitPerToken } from '../rate-limit/limit-per-token';
import { createLinkRequestSchema, expiryIssues, fieldsError, isAlias } from './create-link-input';
import { MAX_ALIAS_LENGTH } from './link-field-limits';
import { requestFingerprint } from './create-fingerprint';
import { requireObjectBody } from './require-object-body';
import { toShortLink, type ShortLink } from './short-link';

/** The context of the link stage: the group and, for a keyed create, its pending answer. */
type CreateContext = GroupContext & Completion;

const aliasTaken = () => new ShortlinkError('ALIAS_TAKEN');

/**
 * The guard's answer held to its port, failing closed: only `{ blocked: false }` lets a URL
 * through. An embedder's guard in plain JavaScript that answers anything else (a string, no
 * object) fails the create with INTERNAL, the cause logged, rather than passing the URL unchecked;
 * a refusal without a reason still says it was refused.
 */
function readVerdict(answer: unknown): UrlVerdict {
  const blocked: unknown =
    typeof answer === 'object' && answer !== null ? (answer as UrlVerdict).blocked : undefined;
  if (blocked === false) return { blocked: false };
  if (blocked === true) {
    const { reason, undecided } = answer as { reason?: unknown; undecided?: unknown };
    return {
      blocked: true,
      reason: typeof reason === 'string' && reason !== '' ? reason : 'no reason was given',
      ...(undecided === true && { undecided: true }),
    };
  }
  const shown = answer === null ? 'null' : typeof answer;
  throw new Error(`the URL guard answered ${shown}, not a verdict with "blocked" true or false`);
}

/** The whole anti-phishing check of a new target, a create's or an update's (URL_BLOCKED). */
export async function guardUrl(
  ctx: Pick<GroupContext, 'deps' | 'organization'>,
  url: URL,
): Promise<void> {
  // A check that cannot run now (a used-up quota, BACKEND_UNAVAILABLE) throws a failure that
  // says when to retry; the caller hands that to the transport, as for every failure.
  const verdict = readVerdict(
    await ctx.deps.urlGuard.check(url, { organization: ctx.organization }),
  );
  if (verdict.blocked) {
    throw new ShortlinkError('URL_BLOCKED', urlRefusedMessage(verdict.reason), {
      transient: verdict.undecided === true,
    });
  }
}

/** The message of a URL the anti-phishing check refused, naming the rule's reason. */
export function urlRefusedMessage(reason: string): string {
  return `The URL was refused: ${reason}`;
}

/**
 * Inserts the link. A keyed request's answer goes into the same write (insertCompleting), made
 * only while the request still holds its claim on the key, so the link never exists without its
 * answer and one key never makes two links. A request whose claim another request took over
 * (it was paused past its lease) stores nothing: ClaimLostError, which the idempotency stage
 * answers as a retry would.
 */
async function insertOne(ctx: CreateContext, link: NewLink): Promise<LinkRecord | 'alias_taken'> {
  const links = ctx.deps.store.links;
  const pending = ctx.pendingCompletion;
  if (!pending) return links.insert(link);
  const stored = await links.insertCompleting(link, pending);
  if (stored === 'claim_lost') throw new ClaimLostError();
  return stored;
}

/**
 * A generated alias, held to the rules of a chosen one: an embedder's generator that returns
 * something else (a number, an empty or over-long alias, a "/") fails the create (INTERNAL, the
 * reason in the logged cause) instead of storing a link no chosen alias could name.
 */
function generatedAlias(ctx: GroupContext, length: number): string {
  const alias: unknown = ctx.deps.aliasGenerator.generate(length);
  if (isAlias(alias)) return alias;
  const shown = typeof alias === 'string' ? JSON.stringify(alias.slice(0, 80)) : typeof alias;
  throw new Error(
    `the alias generator returned ${shown}, not an alias of 1 to ${MAX_ALIAS_LENGTH} letters, ` +
      'digits, "_" or "-"',
  );
}

/**
 * Inserts under a generated alias, retrying collisions a bounded number of times; each collision
 * is counted towards lengthening the domain's generated aliases (GeneratedAliasLengths).
 */
async function insertGenerated(
  ctx: CreateContext,
  link: Omit<NewLink, 'alias'>,
): Promise<LinkRecord> {
  const { reservedAliases, maxAliasAttempts } = ctx.deps;
  const lengths = ctx.creating.aliasLengths;
  for (let attempt = 0; attempt < maxAliasAttempts; attempt += 1) {
    const alias = generatedAlias(ctx, lengths.lengthFor(link.domain));
    if (reservedAliases.has(alias.toLowerCase())) continue;
    const stored = await insertOne(ctx, { ...link, alias });
    if (stored !== 'alias_taken') return stored;
    lengths.collided(link.domain);
  }
  ctx.deps.logger.error({ attempts: maxAliasAttempts }, 'no free generated alias found');
  throw new ShortlinkError('INTERNAL', 'Could not allocate an alias; please retry.');
}

async function insertChosen(ctx: CreateContext, link: NewLink): Promise<LinkRecord> {
  if (ctx.deps.reservedAliases.has(link.alias.toLowerCase())) throw aliasTaken();
  const stored = await insertOne(ctx, link);
  if (stored === 'alias_taken') throw aliasTaken();
  return stored;
}

/**
 * `links.create`: the contract's stages in order — token, rate limit, idempotency key format,
 * body, organization, idempotency (claim, replay, mismatch), group, fields, anti-phishing, alias
 * availability. Nothing but the idempotency claim is written before the last stage.
 */
export const createLink = ProcedureBuilder.create<CoreContext>()
  .use(authenticate)
  .use(limitPerToken)
  .use(checkIdempotencyKey)
  .use(requireObjectBody)
  .use(resolveOrganization)
  .use(idempotent({ fingerprint: requestFingerprint, answerOf: toShortLink }))
  .use(resolveGroup)
  .input(createLinkRequestSchema, fieldsError, expiryIssues)
  .mutation(async ({ ctx, input }): Promise<ShortLink> => {
    await guardUrl(ctx, input.url.parsed);
    const { organization, group } = ctx;
    const link = {
      domain: organization.domain,
      url: input.url.text,
      redirectType: input.redirect_type satisfies RedirectType,
      scheme: organization.scheme,
      organizationId: organization.id,
      groupApiId: group.apiId,
      userId: ctx.userId,
      createdAt: ctx.deps.clock.now(),
      ...(input.expires_at && { expiresAt: input.expires_at }),
      ...(input.max_visits !== undefined && { maxVisits: input.max_visits }),
    };
    const stored = input.alias
      ? await insertChosen(ctx, { ...link, alias: input.alias })
      : await insertGenerated(ctx, link);
    // Following finds it with one read whatever form its Host takes, without a reload.
    ctx.following.domains.add(stored.domain);
    // A 200 promises the link survives a power loss: the one disk sync of a create, which covers
    // a keyed create's recorded answer too (written with the link).
    await ctx.deps.store.flush();
    return toShortLink(stored);
  });
