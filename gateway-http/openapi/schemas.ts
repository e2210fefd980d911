import { z } from 'zod';
import { GENERATED_ALIAS_LENGTH } from '../../core/adapters/nanoid-alias-generator';
import {
  aliasSchema,
  longUrlSchema,
  redirectTypeSchema,
  type CreateLinkField,
} from '../../core/links/create-link-input';
import { expiresAtSchema, maxVisitsSchema } from '../../core/links/expiry-fields';
import {
  MAX_ALIAS_LENGTH,
  MAX_EXPIRY_YEARS,
  MAX_VISITS_LIMIT,
  REDIRECT_TYPES,
} from '../../core/links/link-field-limits';
import { MAX_URL_LENGTH } from '../../core/links/long-url';
import { urlGroupIdSchema } from '../../core/organizations/resolve-group';
import { organizationKeySchema } from '../../core/organizations/resolve-organization';
import { MAX_BODY_BYTES } from '../body-decoding';

/** The JSON Schemas of the document: the create body, the link, the answer's envelope. */

type JsonSchema = Record<string, unknown>;

/** A body field's JSON Schema, from the zod schema the core validates it with. */
function fieldSchema(schema: z.ZodType, description: string, examples?: unknown[]): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  });
  return { ...json, description, ...(examples ? { examples } : {}) };
}

/**
 * What a JSON Schema pattern can say of the contract's url rule (long-url.ts): optional
 * surrounding whitespace; then at most MAX_URL_LENGTH characters (the lookahead), none of them
 * whitespace, a control character or a bidirectional formatting character; starting `http://` or
 * `https://` in any case, followed by a host (not a `/` or `\`, which WHATWG would skip, nor the
 * `?` or `#` that would leave no host). Whether the rest parses is left to the service
 * (URL_INVALID). ECMA-262 syntax valid with and without the `u` flag, as JSON Schema validators
 * differ.
 */
const FORBIDDEN_IN_URL =
  '\\s\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const URL_PATTERN =
  `^\\s*(?=[^${FORBIDDEN_IN_URL}]{1,${MAX_URL_LENGTH}}\\s*$)` +
  `[Hh][Tt][Tt][Pp][Ss]?://[^${FORBIDDEN_IN_URL}/\\\\?#][^${FORBIDDEN_IN_URL}]*\\s*$`;

/**
 * The url's JSON Schema. zod's knows nothing of the trim, so its lengths would count the
 * surrounding whitespace the service drops, and it has no pattern (the rule is a function): the
 * pattern above holds the rule instead.
 */
function urlFieldSchema(): JsonSchema {
  const {
    minLength: _minLength,
    maxLength: _maxLength,
    ...schema
  } = fieldSchema(
    longUrlSchema,
    `The long URL: http:// or https://, with a host, no whitespace or control characters inside, at most ${MAX_URL_LENGTH} characters once surrounding whitespace is trimmed. Missing or blank: code 6; otherwise invalid: 7; refused by the anti-phishing check: 18.`,
    ['https://example.com/a/long/path?q=1'],
  );
  return { ...schema, pattern: URL_PATTERN };
}

/**
 * expires_at's JSON Schema: zod's says only "a string or null" (the rule is a function); the
 * format says which strings: RFC 3339's date-time, whose offset JSON Schema requires too (a format
 * applies to strings alone, so null stays allowed).
 */
function expiresAtFieldSchema(): JsonSchema {
  const schema = fieldSchema(
    expiresAtSchema,
    `When the link stops being followed (then 410, code 30): an RFC 3339 date-time with an offset (\`Z\` or \`±hh:mm\`), later than now and at most ${MAX_EXPIRY_YEARS} years ahead, kept to the millisecond. Omitted or null: never. Anything else: code 31.`,
    ['2030-06-30T23:59:59+02:00'],
  );
  return { ...schema, format: 'date-time' };
}

/** Every field of the create body, described: a field the core adds fails the compiler here. */
const createRequestProperties = {
  organization_key: fieldSchema(
    organizationKeySchema,
    "The organization's secret key. Missing, null or empty: code 4; unknown: 12.",
  ),
  url_group_id: fieldSchema(
    urlGroupIdSchema,
    'A URL group of the organization, as a string or a non-negative integer. Missing, null or empty: code 5; unknown: 14.',
    ['1'],
  ),
  url: urlFieldSchema(),
  alias: fieldSchema(
    aliasSchema,
    `The short path. Omitted, null or empty: one is generated (${GENERATED_ALIAS_LENGTH} characters). Other characters: code 8; longer than ${MAX_ALIAS_LENGTH}: 9; taken on the link domain or reserved: 15.`,
    ['spring-sale'],
  ),
  redirect_type: fieldSchema(
    redirectTypeSchema,
    'The redirect status when the link is followed; omitted or null: 301. Anything else (strings included): code 16.',
    [301],
  ),
  expires_at: expiresAtFieldSchema(),
  max_visits: fieldSchema(
    maxVisitsSchema,
    `The most redirects the link makes (then 410, code 30), counted exactly across processes; a link with a limit is never cached by browsers. An integer from 1 to ${MAX_VISITS_LIMIT.toLocaleString('en-US')}; omitted or null: no limit. Anything else (strings included): code 32.`,
    [100],
  ),
} satisfies Record<CreateLinkField, JsonSchema>;

export const createRequestSchema: JsonSchema = {
  type: 'object',
  description: `At most ${MAX_BODY_BYTES / 1024} KiB of JSON. Unknown fields are ignored.`,
  required: ['organization_key', 'url_group_id', 'url'],
  properties: createRequestProperties,
};

export const shortLinkSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'short_url', 'url', 'domain', 'alias', 'redirect_type'],
  additionalProperties: false,
  properties: {
    id: {
      type: 'integer',
      minimum: 1,
      description: 'Unique across the deployment, increasing within one process.',
    },
    short_url: { type: 'string', description: '`<scheme>://<domain>/<alias>`.' },
    url: { type: 'string', description: 'The submitted URL, surrounding whitespace trimmed.' },
    domain: { type: 'string', description: "The organization's link domain (host or host:port)." },
    alias: { type: 'string', description: 'The submitted alias, or the generated one.' },
    redirect_type: { type: 'integer', enum: [...REDIRECT_TYPES] },
  },
};

/** The schema of the `{data, code, errors}` envelope every create answer has (no other keys). */
export function envelopeSchema(properties: {
  data: JsonSchema;
  code: JsonSchema;
  errors: JsonSchema;
}) {
  return {
    type: 'object',
    required: ['data', 'code', 'errors'],
    additionalProperties: false,
    properties,
  };
}
