import { z } from 'zod';
import { ShortlinkError } from '../errors/shortlink-error';
import { ERROR_CATALOGUE, type ErrorReason } from '../errors/error-catalogue';
import type { Clock } from '../ports/clock';
import type { RedirectType } from '../ports/link-store';
import { MAX_ALIAS_LENGTH, REDIRECT_TYPES } from './link-field-limits';
import { hostTooLong, MAX_HOST_LENGTH, MAX_URL_LENGTH, parseLongUrl } from './long-url';
import { urlGroupIdSchema } from '../organizations/resolve-group';
import { organizationKeySchema } from '../organizations/resolve-organization';
import { isAbsent, ownField } from '../procedure/raw-input';
import { expiresAtSchema, expiryInRange, maxVisitsSchema } from './expiry-fields';

/** The rules of the create body, declared once and used by every transport. */

const ALIAS_CHARACTERS = /^[A-Za-z0-9_-]*$/;
const DEFAULT_REDIRECT_TYPE: RedirectType = 301;

export const longUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_URL_LENGTH)
  .transform((text, ctx) => {
    const parsed = parseLongUrl(text);
    if (parsed === null) {
      ctx.addIssue({ code: 'custom', message: 'not an http(s) URL' });
      return z.NEVER;
    }
    return { text, parsed };
  });

/**
 * Whether `value` is an alias as the rules define one: 1 to MAX_ALIAS_LENGTH characters from
 * ALIAS_CHARACTERS. What aliasSchema accepts of a non-empty chosen alias, and what a generated
 * alias must be.
 */
export function isAlias(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_ALIAS_LENGTH &&
    ALIAS_CHARACTERS.test(value)
  );
}

export const aliasSchema = z
  .string()
  .max(MAX_ALIAS_LENGTH)
  .regex(ALIAS_CHARACTERS)
  .nullish()
  .transform((alias) => (alias ? alias : undefined));

export const redirectTypeSchema = z
  .literal(REDIRECT_TYPES)
  .nullish()
  .transform((value): RedirectType => value ?? DEFAULT_REDIRECT_TYPE);

/**
 * Reads only the body's own fields, never inherited ones (an in-process caller could pass an
 * object with a prototype). What reaches `schema` is a plain object of those fields, so what a
 * caller passes is typed as what `schema` accepts.
 */
function ownFieldsOf<TShape extends z.core.$ZodLooseShape>(
  schema: z.ZodObject<TShape>,
): z.ZodType<z.output<z.ZodObject<TShape>>, z.input<z.ZodObject<TShape>>> {
  const names = Object.keys(schema.shape);
  const picked = z.preprocess(
    (body) => Object.fromEntries(names.map((name) => [name, ownField(body, name)])),
    schema,
  );
  // preprocess types its input as unknown; the function above only narrows it to these fields.
  return picked as unknown as z.ZodType<
    z.output<z.ZodObject<TShape>>,
    z.input<z.ZodObject<TShape>>
  >;
}

/**
 * The create body's fields. The organization and group fields are checked earlier, by their own
 * stages (with these same schemas); the fields stage parses the whole object and reports every
 * failing link field.
 */
const createLinkFields = z.object({
  organization_key: organizationKeySchema,
  url_group_id: urlGroupIdSchema,
  url: longUrlSchema,
  alias: aliasSchema,
  redirect_type: redirectTypeSchema,
  expires_at: expiresAtSchema,
  max_visits: maxVisitsSchema,
});

/** The create request, field by field. */
export const createLinkRequestSchema = ownFieldsOf(createLinkFields);

/** What an in-process caller passes to `links.create`. */
export type CreateLinkRequest = z.input<typeof createLinkRequestSchema>;

/** Every field of the create body: a description of the body (OpenAPI) names each. */
export type CreateLinkField = keyof typeof createLinkFields.shape;

/** The fields the fields stage judges (the organization's and the group's have their stages). */
type LinkField = Exclude<CreateLinkField, 'organization_key' | 'url_group_id'>;

const defaultMessage = (reason: ErrorReason) => ERROR_CATALOGUE[reason].message;
const failure = (reason: ErrorReason): FieldFailure => [reason, defaultMessage(reason)];

type FieldFailure = [ErrorReason, string];

/**
 * Each link field's failure, from its issues and its raw value; one entry per field of the schema
 * (a field added there and forgotten here fails the compiler), in the contract's order: the first
 * failing field's code is the answer's.
 */
const FIELD_FAILURES = {
  url: (_issues, raw) => {
    if (isAbsent(raw) || (typeof raw === 'string' && raw.trim() === '')) {
      return failure('URL_MISSING');
    }
    if (typeof raw === 'string' && raw.trim().length > MAX_URL_LENGTH) {
      return ['URL_INVALID', `url must be at most ${MAX_URL_LENGTH} characters.`];
    }
    if (typeof raw === 'string' && hostLongerThanAllowed(raw.trim())) {
      return ['URL_INVALID', `url's host must be at most ${MAX_HOST_LENGTH} characters.`];
    }
    return failure('URL_INVALID');
  },
  alias: (issues) =>
    failure(issues.every((issue) => issue.code === 'too_big') ? 'ALIAS_TOO_LONG' : 'ALIAS_INVALID'),
  redirect_type: () => failure('REDIRECT_TYPE_INVALID'),
  expires_at: () => failure('EXPIRES_AT_INVALID'),
  max_visits: () => failure('MAX_VISITS_INVALID'),
} satisfies Record<LinkField, (issues: z.core.$ZodIssue[], raw: unknown) => FieldFailure>;

/** Object keys keep their order of declaration: FIELD_FAILURES's is the contract's. */
const FIELD_ORDER = Object.keys(FIELD_FAILURES) as LinkField[];

/** The code and message of a failing link field, as a create reports it (and an update, the same). */
export function fieldFailure(
  field: LinkField,
  issues: z.core.$ZodIssue[],
  raw: unknown,
): FieldFailure {
  return FIELD_FAILURES[field](issues, raw);
}

function hostLongerThanAllowed(text: string): boolean {
  const parsed = URL.parse(text);
  return parsed !== null && hostTooLong(parsed);
}

/** Maps the request schema's failures to the contract: code of the first field, every message. */
export function fieldsError(error: z.ZodError, rawInput: unknown): ShortlinkError {
  const failures = FIELD_ORDER.flatMap((field) => {
    const issues = error.issues.filter((issue) => issue.path[0] === field);
    return issues.length > 0 ? [FIELD_FAILURES[field](issues, ownField(rawInput, field))] : [];
  });
  const first = failures[0];
  if (!first) return new ShortlinkError('INTERNAL');
  return new ShortlinkError(
    first[0],
    failures.map(([, message]) => message),
  );
}

/**
 * The issue of an `expires_at` that is an RFC 3339 date-time but not in range at the time of the
 * request (by the core's clock): a field failure reported with the others.
 */
export function expiryIssues(
  ctx: { deps: { clock: Clock } },
  rawInput: unknown,
): readonly z.core.$ZodIssue[] {
  const raw = ownField(rawInput, 'expires_at');
  if (raw === undefined || raw === null) return [];
  const parsed = expiresAtSchema.safeParse(raw);
  if (!parsed.success || parsed.data === undefined) return [];
  if (expiryInRange(parsed.data, ctx.deps.clock.now())) return [];
  return [{ code: 'custom', path: ['expires_at'], message: 'not in range', input: raw }];
}
