import { ShortlinkError } from '../errors/shortlink-error';
import { operatorActing } from '../links/link-actor';
import { changedLink } from '../links/set-link-state';
import { readUpdateFields } from '../links/update-link-input';
import { urlRefusedMessage } from '../links/create-link';
import type { Clock } from '../ports/clock';
import { ADMIN_ACTOR, type LinkEdit, type LinkRecord } from '../ports/link-store';
import type { Store } from '../ports/store';
import type { UrlGuard } from '../ports/url-guard';
import { NotFoundProvisioningError, ProvisioningError } from '../provisioning/provisioning-error';
import { usageError, type Options } from './admin-command-line';
import type { PrintLine } from './link-commands';
import { findNamedLink, readLinkOption } from './link-reference-options';

/** The options of `link update`, by the field each one sets. */
const FIELD_OPTIONS = {
  url: 'url',
  redirect_type: 'redirect-type',
  expires_at: 'expires-at',
  max_visits: 'max-visits',
} as const;

/** A whole number written in digits, as a number; anything else as written (the rules refuse it). */
const numberOrText = (text: string): number | string =>
  /^\d{1,16}$/.test(text) ? Number(text) : text;

/**
 * The fields the command line sets, as the core's rules read them: `none` removes an expiry or
 * a limit (null); numbers are read from their digits.
 */
function readFieldOptions(options: Options): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const text = (name: string) => (typeof options[name] === 'string' ? options[name] : undefined);
  const url = text(FIELD_OPTIONS.url);
  if (url !== undefined) values.url = url;
  const redirect = text(FIELD_OPTIONS.redirect_type);
  if (redirect !== undefined) values.redirect_type = numberOrText(redirect);
  const expiry = text(FIELD_OPTIONS.expires_at);
  if (expiry !== undefined) values.expires_at = expiry === 'none' ? null : expiry;
  const limit = text(FIELD_OPTIONS.max_visits);
  if (limit !== undefined) values.max_visits = limit === 'none' ? null : numberOrText(limit);
  return values;
}

/** A field's value as the operator reads it: `none` for no expiry or limit. */
function shown(link: LinkRecord, field: keyof typeof FIELD_OPTIONS): string {
  switch (field) {
    case 'url':
      return link.url;
    case 'redirect_type':
      return String(link.redirectType);
    case 'expires_at':
      return link.expiresAt?.toISOString() ?? 'none';
    case 'max_visits':
      return link.maxVisits === undefined ? 'none' : String(link.maxVisits);
  }
}

/** `url A → B, max_visits none → 5`: each field the update changed. */
function changesOf(before: LinkRecord, after: LinkRecord): string {
  return (Object.keys(FIELD_OPTIONS) as Array<keyof typeof FIELD_OPTIONS>)
    .filter((field) => shown(before, field) !== shown(after, field))
    .map((field) => `${field} ${shown(before, field)} → ${shown(after, field)}`)
    .join(', ');
}

/**
 * `link update`: the operator's edit of any link, by `admin`, never held (it lifts nothing and
 * keeps the link's state: a takedown stays a takedown). The values follow the create's rules
 * (checked before the store opens, exit status 2), and a new url passes `guard`, the URL guard
 * the configuration builds, as the server's.
 */
export function linkUpdateCommand(
  options: Options,
  now: Date,
): (store: Store, clock: Clock, print: PrintLine, guard: UrlGuard) => Promise<void> {
  const named = readLinkOption(options);
  const values = readFieldOptions(options);
  if (Object.keys(values).length === 0) {
    throw usageError('give at least one of --url, --redirect-type, --expires-at, --max-visits');
  }
  let parsed: ReturnType<typeof readUpdateFields>;
  try {
    parsed = readUpdateFields(values, now);
  } catch (error) {
    if (error instanceof ShortlinkError) throw new ProvisioningError(error.messages.join(' '));
    throw error;
  }
  const { edit, url } = parsed;
  return async (store, clock, print, guard) => {
    const link = await findNamedLink(store.links, named);
    if (url) await checkUrl(store, guard, link, url);
    const outcome = changedLink(
      await store.links.update(link.id, edit, operatorActing(clock, ADMIN_ACTOR)),
    );
    const short = `link ${link.id} (${link.scheme}://${link.domain}/${link.alias})`;
    await print(
      outcome.changed
        ? `${short} is updated: ${changesOf(link, outcome.link)}`
        : `${short} already has ${describeEdit(edit)}; nothing changed`,
    );
  };
}

const describeEdit = (edit: LinkEdit) =>
  Object.keys(edit).length === 1 ? 'this value' : 'these values';

/**
 * A new target through the configured guard, for the link's organization: refused is exit status
 * 2 with the guard's reason; a refusal without a verdict (the reputation service could not
 * check) is 1, as a retry may pass.
 */
async function checkUrl(store: Store, guard: UrlGuard, link: LinkRecord, url: URL): Promise<void> {
  const organization = await store.identities.findOrganizationById(link.organizationId);
  if (!organization) {
    throw new NotFoundProvisioningError(
      `no organization "${link.organizationId}" for link ${link.id}`,
    );
  }
  const verdict = await guard.check(url, { organization });
  if (!verdict.blocked) return;
  const message = urlRefusedMessage(verdict.reason);
  if (verdict.undecided) throw new Error(`${message} (no verdict now: try again)`);
  throw new ProvisioningError(message);
}
