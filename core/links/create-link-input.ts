import { z } from 'zod';
import { ShortlinkError } from '../errors/shortlink-error';
import type { ErrorReason } from '../errors/error-codes';
import type { RedirectType } from '../ports/link-store';
import { hostTooLong, MAX_HOST_LENGTH, MAX_URL_LENGTH, parseLongUrl } from './long-url';
import { ownField } from './require-object-body';

/** The rules of the create body, declared once and used by every transport. */

export const MAX_ALIAS_LENGTH = 64;
export const ALIAS_CHARACTERS = /^[A-Za-z0-9_-]*$/;
export const REDIRECT_TYPES = [301, 302, 303, 307, 308] as const satisfies readonly RedirectType[];
export const DEFAULT_REDIRECT_TYPE: RedirectType = 301;

export const organizationKeySchema = z.string().min(1);

export const urlGroupIdSchema = z.union([
  z.string().min(1),
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).transform(String),
]);

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
 * The fields stage: every failing field is reported. Only the body's own fields are read, never
 * inherited ones (an in-process caller could pass an object with a prototype).
 */
export const createLinkFieldsSchema = z.preprocess(
  (body) => ({
    url: ownField(body, 'url'),
    alias: ownField(body, 'alias'),
    redirect_type: ownField(body, 'redirect_type'),
  }),
  z.object({
    url: longUrlSchema,
    alias: aliasSchema,
    redirect_type: redirectTypeSchema,
  }),
);

/** What an in-process caller passes to `links.create`. */
export interface CreateLinkRequest {
  organization_key: string;
  url_group_id: string | number;
  url: string;
  alias?: string | null | undefined;
  redirect_type?: RedirectType | null | undefined;
}

export const isAbsent = (value: unknown): boolean =>
  value === undefined || value === null || value === '';

type Field = 'url' | 'alias' | 'redirect_type';
const FIELD_ORDER: readonly Field[] = ['url', 'alias', 'redirect_type'];

function fieldFailure(
  field: Field,
  issues: z.core.$ZodIssue[],
  raw: unknown,
): [ErrorReason, string] {
  switch (field) {
    case 'url':
      if (isAbsent(raw) || (typeof raw === 'string' && raw.trim() === '')) {
        return ['URL_MISSING', 'url is required.'];
      }
      if (typeof raw === 'string' && raw.trim().length > MAX_URL_LENGTH) {
        return ['URL_INVALID', `url must be at most ${MAX_URL_LENGTH} characters.`];
      }
      if (typeof raw === 'string' && hostLongerThanAllowed(raw.trim())) {
        return ['URL_INVALID', `url's host must be at most ${MAX_HOST_LENGTH} characters.`];
      }
      return [
        'URL_INVALID',
        'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.',
      ];
    case 'alias':
      if (issues.every((issue) => issue.code === 'too_big')) {
        return ['ALIAS_TOO_LONG', `alias must be at most ${MAX_ALIAS_LENGTH} characters.`];
      }
      return ['ALIAS_INVALID', 'alias may contain only letters, digits, "_" and "-".'];
    case 'redirect_type':
      return ['REDIRECT_TYPE_INVALID', 'redirect_type must be one of 301, 302, 303, 307, 308.'];
  }
}

function hostLongerThanAllowed(text: string): boolean {
  const parsed = URL.parse(text);
  return parsed !== null && hostTooLong(parsed);
}

/** Maps the fields schema's failures to the contract: code of the first field, every message. */
export function fieldsError(error: z.ZodError, rawInput: unknown): ShortlinkError {
  const failures = FIELD_ORDER.flatMap((field) => {
    const issues = error.issues.filter((issue) => issue.path[0] === field);
    return issues.length > 0 ? [fieldFailure(field, issues, ownField(rawInput, field))] : [];
  });
  const first = failures[0];
  if (!first) return new ShortlinkError('INTERNAL', 'An unexpected error occurred.');
  return new ShortlinkError(
    first[0],
    failures.map(([, message]) => message),
  );
}
