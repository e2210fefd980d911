import type { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorReason } from '../errors/error-catalogue';
import { ShortlinkError } from '../errors/shortlink-error';
import type { LinkEdit } from '../ports/link-store';
import { ownField } from '../procedure/raw-input';
import { fieldFailure, longUrlSchema, redirectTypeSchema } from './create-link-input';
import { argumentsSchema } from './governing-procedure';
import { expiresAtSchema, expiryInRange, maxVisitsSchema } from './expiry-fields';
import { readLinkReference, type LinkReference } from './link-reference';

/** The fields an update may change, in the order their failures are reported (the create's). */
const EDITABLE_FIELDS = ['url', 'redirect_type', 'expires_at', 'max_visits'] as const;
type EditableField = (typeof EDITABLE_FIELDS)[number];

/** What an in-process caller passes to `links.update`: a field given is a field changed. */
export interface UpdateLinkRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
  url?: string;
  /** null: the default, 301 (as a create's). */
  redirect_type?: number | null;
  /** An RFC 3339 date-time with an offset; null: the link no longer expires. */
  expires_at?: string | null;
  /** 1 to 1,000,000,000; null: no limit. */
  max_visits?: number | null;
  /**
   * The fields to change, by name (a field mask, as gRPC's UpdateShortLink sends it, where an
   * unset field cannot be told from a default): given, only these are read, and one absent from
   * the request means null. Absent: the fields given are the ones changed.
   */
  update_mask?: readonly string[];
}

/** The value of each field to change, as sent (null: none, or the default). */
type FieldValues = Partial<Record<EditableField, unknown>>;

const isEditable = (name: unknown): name is EditableField =>
  EDITABLE_FIELDS.some((field) => field === name);

/**
 * The fields a request changes: those the mask names (a field absent from the request is null),
 * or without a mask those it has as its own keys with a value other than undefined (which is what
 * an in-process caller's `{ url: undefined }` means: nothing; null is a value: "none").
 */
function readFieldValues(body: unknown, problems: string[]): FieldValues {
  const mask = ownField(body, 'update_mask');
  const values: FieldValues = {};
  if (mask === undefined) {
    for (const field of EDITABLE_FIELDS) {
      const value = ownField(body, field);
      if (value !== undefined) values[field] = value;
    }
  } else if (!Array.isArray(mask)) {
    problems.push('update_mask must be a list of field names.');
    return values;
  } else if ((mask as unknown[]).some((name) => !isEditable(name))) {
    problems.push(`update_mask may name only ${EDITABLE_FIELDS.join(', ')}.`);
    return values;
  } else {
    for (const name of mask as EditableField[]) values[name] = ownField(body, name) ?? null;
  }
  if (Object.keys(values).length === 0) {
    problems.push(`Give at least one field to change: ${EDITABLE_FIELDS.join(', ')}.`);
  }
  return values;
}

/** The arguments stage (ARGUMENT_INVALID): the link named, and at least one field to change. */
export const updateArguments = argumentsSchema<{ reference: LinkReference; values: FieldValues }>(
  (body) => {
    const reference = readLinkReference(body);
    const problems = typeof reference === 'string' ? [reference] : [];
    const values = readFieldValues(body, problems);
    if (typeof reference === 'string' || problems.length > 0) return { problems };
    return { reference, values };
  },
);

/** An edit read from the request, and the new target's parsed URL for the anti-phishing check. */
interface ParsedUpdate {
  edit: LinkEdit;
  url: URL | undefined;
}

type Failure = [ErrorReason, string];
const failureOf = (reason: ErrorReason): Failure => [reason, ERROR_CATALOGUE[reason].message];

/**
 * The fields stage: each given field by the create's schema (codes 6, 7, 16, 31, 32), the first
 * failing field's code with every failing field's message. `now` is when an expiry must be later
 * than.
 */
export function readUpdateFields(values: FieldValues, now: Date): ParsedUpdate {
  const edit: LinkEdit = {};
  let url: URL | undefined;
  const failures: Failure[] = [];
  const parse = <T>(
    field: EditableField,
    schema: z.ZodType<T>,
    onFailure: (e: z.ZodError) => Failure,
  ) => {
    if (!Object.hasOwn(values, field)) return undefined;
    const parsed = schema.safeParse(values[field]);
    if (parsed.success) return { value: parsed.data };
    failures.push(onFailure(parsed.error));
    return undefined;
  };
  const raw = (field: EditableField) => values[field];

  const newUrl = parse('url', longUrlSchema, (e) => fieldFailure('url', e.issues, raw('url')));
  if (newUrl) {
    edit.url = newUrl.value.text;
    url = newUrl.value.parsed;
  }
  const redirect = parse('redirect_type', redirectTypeSchema, (e) =>
    fieldFailure('redirect_type', e.issues, raw('redirect_type')),
  );
  if (redirect) edit.redirectType = redirect.value;
  // The create's rules (expiry-fields.ts); null, given, removes the expiry or the limit.
  const expiry = parse('expires_at', expiresAtSchema, () => failureOf('EXPIRES_AT_INVALID'));
  if (expiry) {
    if (expiry.value === undefined) edit.expiresAt = null;
    else if (expiryInRange(expiry.value, now)) edit.expiresAt = expiry.value;
    else failures.push(failureOf('EXPIRES_AT_INVALID'));
  }
  const limit = parse('max_visits', maxVisitsSchema, () => failureOf('MAX_VISITS_INVALID'));
  if (limit) edit.maxVisits = limit.value ?? null;

  const first = failures[0];
  if (first) {
    throw new ShortlinkError(
      first[0],
      failures.map(([, message]) => message),
    );
  }
  return { edit, url };
}
