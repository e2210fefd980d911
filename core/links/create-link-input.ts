import { z } from 'zod';
import { ShortlinkError } from '../errors/shortlink-error';
import { ERROR_CATALOGUE, type ErrorReason } from '../errors/error-catalogue';
import type { RedirectType } from '../ports/link-store';
import { MAX_ALIAS_LENGTH, REDIRECT_TYPES } from './link-field-limits';
import { hostTooLong, MAX_HOST_LENGTH, MAX_URL_LENGTH, parseLongUrl } from './long-url';
import { urlGroupIdSchema } from '../organizations/resolve-group';
import { organizationKeySchema } from '../organizations/resolve-organization';
import { isAbsent, ownField } from '../procedure/raw-input';

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
 * The create request, field by field. The organization and group fields are checked earlier, by
 * their own stages (with these same schemas); the fields stage parses the whole object and
 * reports every failing link field.
 */
export const createLinkRequestSchema = ownFieldsOf(
  z.object({
    organization_key: organizationKeySchema,
    url_group_id: urlGroupIdSchema,
    url: longUrlSchema,
    alias: aliasSchema,
    redirect_type: redirectTypeSchema,
  }),
);

/** What an in-process caller passes to `links.create`. */
export type CreateLinkRequest = z.input<typeof createLinkRequestSchema>;

type Field = 'url' | 'alias' | 'redirect_type';
const FIELD_ORDER: readonly Field[] = ['url', 'alias', 'redirect_type'];

const defaultMessage = (reason: ErrorReason) => ERROR_CATALOGUE[reason].message;

/** The code and message of a failing field, as a create reports it (and an update, the same). */
export function fieldFailure(
  field: Field,
  issues: z.core.$ZodIssue[],
  raw: unknown,
): [ErrorReason, string] {
  switch (field) {
    case 'url':
      if (isAbsent(raw) || (typeof raw === 'string' && raw.trim() === '')) {
        return ['URL_MISSING', defaultMessage('URL_MISSING')];
      }
      if (typeof raw === 'string' && raw.trim().length > MAX_URL_LENGTH) {
        return ['URL_INVALID', `url must be at most ${MAX_URL_LENGTH} characters.`];
      }
      if (typeof raw === 'string' && hostLongerThanAllowed(raw.trim())) {
        return ['URL_INVALID', `url's host must be at most ${MAX_HOST_LENGTH} characters.`];
      }
      return ['URL_INVALID', defaultMessage('URL_INVALID')];
    case 'alias':
      if (issues.every((issue) => issue.code === 'too_big')) {
        return ['ALIAS_TOO_LONG', defaultMessage('ALIAS_TOO_LONG')];
      }
      return ['ALIAS_INVALID', defaultMessage('ALIAS_INVALID')];
    case 'redirect_type':
      return ['REDIRECT_TYPE_INVALID', defaultMessage('REDIRECT_TYPE_INVALID')];
  }
}

function hostLongerThanAllowed(text: string): boolean {
  const parsed = URL.parse(text);
  return parsed !== null && hostTooLong(parsed);
}

/** Maps the request schema's failures to the contract: code of the first field, every message. */
export function fieldsError(error: z.ZodError, rawInput: unknown): ShortlinkError {
  const failures = FIELD_ORDER.flatMap((field) => {
    const issues = error.issues.filter((issue) => issue.path[0] === field);
    return issues.length > 0 ? [fieldFailure(field, issues, ownField(rawInput, field))] : [];
  });
  const first = failures[0];
  if (!first) return new ShortlinkError('INTERNAL');
  return new ShortlinkError(
    first[0],
    failures.map(([, message]) => message),
  );
}
