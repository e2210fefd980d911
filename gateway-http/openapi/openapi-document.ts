import { z } from 'zod';
import {
  BACKEND_RETRY_AFTER_SECONDS,
  ERROR_CATALOGUE,
  ERROR_REASONS,
  ErrorCode,
  IDEMPOTENT_REPLAYED_FIELD,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  type ErrorReason,
} from '../../core';
import { aliasSchema, longUrlSchema, redirectTypeSchema } from '../../core/links/create-link-input';
import { REDIRECT_TYPES } from '../../core/links/link-field-limits';
import { MAX_URL_LENGTH } from '../../core/links/long-url';
import { urlGroupIdSchema } from '../../core/organizations/resolve-group';
import { organizationKeySchema } from '../../core/organizations/resolve-organization';
import { MAX_BODY_BYTES } from '../body-decoding';
import { LINK_GONE_CONTENT_SECURITY_POLICY, LINK_GONE_PAGE } from '../link-gone-page';
import { HTTP_STATUS_BY_REASON } from '../status-by-reason';
import { exampleMessage } from './error-examples';

type JsonSchema = Record<string, unknown>;

/** Paths the service answers itself, named once for the routes and the document. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
/** The operation that stands for every path and method the document does not list. */
export const UNKNOWN_ENDPOINT_OPERATION = 'unknownEndpoint';

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
 * `?` or `#` that would leave no host). Whether the rest parses is left to the service (code
 * 7). ECMA-262 syntax valid with and without the `u` flag, as JSON Schema validators differ.
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

const createRequestSchema: JsonSchema = {
  type: 'object',
  description: `At most ${MAX_BODY_BYTES / 1024} KiB of JSON. Unknown fields are ignored.`,
  required: ['organization_key', 'url_group_id', 'url'],
  properties: {
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
      'The short path. Omitted, null or empty: one is generated (7 characters). Other characters: code 8; longer than 64: 9; taken on the link domain or reserved: 15.',
      ['spring-sale'],
    ),
    redirect_type: fieldSchema(
      redirectTypeSchema,
      'The redirect status when the link is followed; omitted or null: 301. Anything else (strings included): code 16.',
      [301],
    ),
  },
};

const shortLinkSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'short_url', 'url', 'domain', 'alias', 'redirect_type'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Unique across the deployment, increasing.' },
    short_url: { type: 'string', description: '`<scheme>://<domain>/<alias>`.' },
    url: { type: 'string', description: 'The submitted URL, surrounding whitespace trimmed.' },
    domain: { type: 'string', description: "The organization's link domain (host or host:port)." },
    alias: { type: 'string', description: 'The submitted alias, or the generated one.' },
    redirect_type: { type: 'integer', enum: [...REDIRECT_TYPES] },
  },
};

const REQUEST_ID_HEADER = {
  description:
    'The request id: the caller\'s X-Request-Id when it is 1-64 characters of "A-Za-z0-9._-", else a fresh UUID.',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
};

function rateLimitHeaders(required: boolean): Record<string, unknown> {
  const integer = (description: string) => ({
    description,
    required,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  });
  return {
    'X-RateLimit-Limit': integer('Requests allowed per window for this token.'),
    'X-RateLimit-Remaining': integer('Requests left in the current window.'),
    'X-RateLimit-Reset': integer('Unix time (seconds) when the window resets.'),
    'RateLimit-Policy': {
      description: 'IETF draft field: the policy (quota q per window w seconds).',
      required,
      schema: { type: 'string', examples: ['"default";q=60;w=60'] },
    },
    RateLimit: {
      description: 'IETF draft field: remaining requests r, seconds t until the window resets.',
      required,
      schema: { type: 'string', examples: ['"default";r=59;t=60'] },
    },
  };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The Idempotency-Key header is malformed (code 27), or the body is not valid JSON or not a JSON object (code 20).',
  409: 'A request with the same Idempotency-Key is still running (code 26); retry after Retry-After seconds.',
  401: 'Authentication failed: header missing (3) or malformed (10), token unknown (11), organization key unknown (12), organization inactive (13), not a member (17).',
  404: 'No such endpoint, or no short link with this alias (code 24).',
  405: 'Method not allowed (code 2).',
  413: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB (code 22).`,
  415: 'Content-Type is not application/json, its charset is not UTF-8, UTF-16 or UTF-32, or its Content-Encoding is not gzip, deflate or br (code 21).',
  422: 'A field is missing or invalid (4-9, 14-16), the URL is refused by the anti-phishing check (18), or the Idempotency-Key was already used for a different request (25).',
  429: 'Rate limit exceeded (code 19): per token, or per client address for failed token checks.',
  500: 'Unexpected error (code 1).',
  503: 'Storage or rate-limit backend unavailable, or the reputation lookup quota used up (code 23).',
};

/**
 * Codes REST never answers: 29 is refused arguments of the procedures that read and govern links,
 * which REST does not serve (the core and gRPC do). status-by-reason.ts still maps it, by its
 * meaning, because every code must have a status; no operation here lists it.
 */
export const NEVER_ON_REST: ReadonlySet<ErrorReason> = new Set(['ARGUMENT_INVALID']);

/**
 * Codes a create never answers: besides those never on REST, 2 and 24 have operations of their
 * own (another method on /api/create, an unknown endpoint) and 28 is following's.
 */
const NOT_FROM_CREATE: ReadonlySet<ErrorReason> = new Set([
  ...NEVER_ON_REST,
  'METHOD_NOT_ALLOWED',
  'NOT_FOUND',
  'LINK_DISABLED',
]);

const createReasons = ERROR_REASONS.filter((reason) => !NOT_FROM_CREATE.has(reason));

function createReasonsWithStatus(status: number): ErrorReason[] {
  return createReasons.filter((reason) => HTTP_STATUS_BY_REASON[reason] === status);
}

/** The schema of the `{data, code, errors}` envelope every create answer has (no other keys). */
function envelopeSchema(properties: { data: JsonSchema; code: JsonSchema; errors: JsonSchema }) {
  return {
    type: 'object',
    required: ['data', 'code', 'errors'],
    additionalProperties: false,
    properties,
  };
}

/**
 * `{data: null, code, errors}` for the given codes, with one example per code: the catalogue's,
 * or the one `examples` gives where an operation answers the code with its own message.
 */
function errorContent(
  only: readonly ErrorReason[],
  examples: Partial<Record<ErrorReason, string>> = {},
) {
  return {
    'application/json': {
      schema: envelopeSchema({
        data: { type: 'null' },
        code: { type: 'integer', enum: only.map((reason) => ErrorCode[reason]) },
        errors: { type: 'array', minItems: 1, items: { type: 'string' } },
      }),
      examples: Object.fromEntries(
        only.map((reason) => [
          `code${ErrorCode[reason]}`,
          {
            summary: `${ErrorCode[reason]}: ${reason}`,
            value: {
              data: null,
              code: ErrorCode[reason],
              errors: [examples[reason] ?? exampleMessage(reason)],
            },
          },
        ]),
      ),
    },
  };
}

/** Whether every create answer with this status has the catalogue's `flag`, or some answer has. */
const every = (status: number, flag: 'afterTokenCheck') =>
  createReasonsWithStatus(status).every((reason) => ERROR_CATALOGUE[reason][flag]);
const some = (status: number, flag: 'recorded' | 'retryAfter') =>
  createReasonsWithStatus(status).some((reason) => ERROR_CATALOGUE[reason][flag]);

const retryAfter = (required: boolean, description: string) => ({
  'Retry-After': {
    description,
    required,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
});

/**
 * On an answer replayed for a repeated Idempotency-Key: the success, and the failures the
 * catalogue marks `recorded`.
 */
const IDEMPOTENT_REPLAYED_HEADER = {
  [IDEMPOTENT_REPLAYED_FIELD]: {
    description:
      'Present, with the value `true`, only when this answer is the recorded answer of an earlier request with the same Idempotency-Key, sent again.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
};

/** What Retry-After means on the answers of each code the catalogue marks `retryAfter`. */
const RETRY_AFTER_MEANING: Partial<Record<ErrorReason, string>> = {
  RATE_LIMITED: 'Seconds until a retry can succeed.',
  IDEMPOTENCY_KEY_IN_USE: 'Seconds to wait before retrying with the same key.',
  BACKEND_UNAVAILABLE: `Seconds to wait before retrying: ${BACKEND_RETRY_AFTER_SECONDS} when the store or a rate-limit backend cannot be reached; when the reputation lookup quota is used up, until it refills.`,
};

function retryAfterOf(status: number) {
  const meanings = createReasonsWithStatus(status)
    .filter((reason) => ERROR_CATALOGUE[reason].retryAfter)
    .map((reason) => RETRY_AFTER_MEANING[reason] ?? 'Seconds until a retry can succeed.');
  return retryAfter(true, meanings.join(' '));
}

function createErrorResponses(): Record<string, unknown> {
  const statuses = [...new Set(createReasons.map((reason) => HTTP_STATUS_BY_REASON[reason]))].sort(
    (a, b) => a - b,
  );
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERROR_DESCRIPTIONS[status] ?? `Error ${status}.`,
        headers: {
          'X-Request-Id': REQUEST_ID_HEADER,
          ...rateLimitHeaders(every(status, 'afterTokenCheck')),
          ...(some(status, 'retryAfter') ? retryAfterOf(status) : {}),
          ...(some(status, 'recorded') ? IDEMPOTENT_REPLAYED_HEADER : {}),
        },
        content: errorContent(createReasonsWithStatus(status)),
      },
    ]),
  );
}

/** A response whose only header is the X-Request-Id every answer carries. */
function withRequestId(description: string | undefined, content: Record<string, unknown>) {
  return { description, headers: { 'X-Request-Id': REQUEST_ID_HEADER }, content };
}

const notFound = withRequestId(ERROR_DESCRIPTIONS[404], errorContent(['NOT_FOUND']));

/** What following answers when the link cannot be looked up: the store's own failures. */
const followFailures = {
  '500': withRequestId(ERROR_DESCRIPTIONS[500], errorContent(['INTERNAL'])),
  '503': {
    description: 'The store is unavailable (code 23).',
    headers: {
      'X-Request-Id': REQUEST_ID_HEADER,
      ...retryAfter(true, 'Seconds to wait before retrying: 5 when the store cannot be reached.'),
    },
    content: errorContent(['BACKEND_UNAVAILABLE']),
  },
};

/**
 * A client address past its budget of unknown aliases (code 19): the JSON error body, as a 404
 * of following has, with Retry-After; no rate-limit headers (they describe a token's budget).
 */
const tooManyMisses = {
  description:
    'The client address (IPv6: its /64; behind TRUST_PROXY, the forwarded client) is past its budget of unknown aliases (code 19): FOLLOW_MISSES_PER_MINUTE, 60 by default, shared with gRPC ResolveShortLink. Until its window resets, its follows are refused without a lookup, except of a link this process holds in its link cache (one followed in the last few seconds), which still answers.',
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    ...retryAfter(true, "Seconds until the address's window resets."),
  },
  content: errorContent(['RATE_LIMITED'], {
    RATE_LIMITED: 'Too many unknown short links from this address; slow down.',
  }),
};

/**
 * A link that must not be followed (code 28): the same answer for every reason, in JSON or as
 * an HTML page by the Accept header (see link-gone.ts).
 */
const linkGone = {
  description:
    'The link is not followed (code 28): it is disabled, its organization is inactive, or its target now fails the local anti-phishing rules. The same answer whatever the reason, with no Location and never the target URL: the JSON error body when the Accept header prefers application/json to text/html, otherwise (no Accept header included) a small HTML page.',
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    'Cache-Control': {
      description: 'Never stored: the link answers again as soon as it is enabled.',
      required: true,
      schema: { type: 'string', const: 'no-store' },
    },
    Vary: {
      description: 'The body depends on the Accept header.',
      required: true,
      schema: { type: 'string', const: 'Accept' },
    },
    'X-Content-Type-Options': {
      description: 'The body is only ever what its Content-Type says.',
      required: true,
      schema: { type: 'string', const: 'nosniff' },
    },
    'Content-Security-Policy': {
      description: 'On the HTML page: it may load and run nothing (its one inline style by hash).',
      required: false,
      schema: { type: 'string', const: LINK_GONE_CONTENT_SECURITY_POLICY },
    },
  },
  content: {
    ...errorContent(['LINK_DISABLED']),
    'text/html': {
      schema: { type: 'string' },
      examples: { page: { summary: 'The page, in UTF-8', value: LINK_GONE_PAGE } },
    },
  },
};

/**
 * 405 (code 2), for any method but POST on /api/create. Not an operation of its own: the document
 * lists the methods a path serves, and /api/create serves POST alone, as its `Allow: POST` says.
 * The catch-all operation, which stands for every method and path the document does not list,
 * carries it.
 */
const methodNotAllowed = {
  description: `${ERROR_DESCRIPTIONS[405]} Any method but POST on /api/create; no body on a HEAD.`,
  headers: {
    'X-Request-Id': REQUEST_ID_HEADER,
    Allow: { description: 'The allowed method.', required: true, schema: { const: 'POST' } },
  },
  content: errorContent(['METHOD_NOT_ALLOWED']),
};

/**
 * An operation answering HEAD: its GET's statuses and headers, without any content (a HEAD
 * answer has no body; RFC 9110, section 9.3.2).
 */
function headOf<T extends { responses: Record<string, unknown> }>(operation: T): T {
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => {
      const { content: _content, ...withoutContent } = response as Record<string, unknown>;
      return [status, withoutContent];
    }),
  );
  return { ...operation, responses };
}

const jsonStatus = (statuses: string[]) => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { type: 'string', enum: statuses } },
    },
  },
});

function redirectResponses(): Record<string, unknown> {
  return Object.fromEntries(
    REDIRECT_TYPES.map((status) => [
      String(status),
      {
        description: `The link's redirect status is ${status}.`,
        headers: {
          'X-Request-Id': REQUEST_ID_HEADER,
          Location: {
            description: 'The long URL.',
            required: true,
            schema: { type: 'string' },
          },
          'Cache-Control': {
            description:
              '301 and 308: `private, max-age=<REDIRECT_CACHE_MAX_AGE>` (90 s by default); 302, 303, 307: `no-store`.',
            required: true,
            schema: { type: 'string' },
          },
        },
      },
    ]),
  );
}

function followOperation(operationId: string, summary: string) {
  return {
    tags: ['links'],
    operationId,
    summary,
    description:
      "Asked on a host that is an organization's link domain (the Host header names it): answers with the link's redirect, or 410 (code 28) when the link must not be followed. Needs no credentials. A disable, an enable or an organization's deactivation is seen by every process within CHANGE_PROPAGATION_SECONDS (5 s by default). Unknown aliases (404, code 24) are limited per client address: past FOLLOW_MISSES_PER_MINUTE (60) in a minute, 429 (code 19).",
    parameters: [
      {
        name: 'alias',
        in: 'path',
        required: true,
        description: 'The alias (case-sensitive).',
        schema: { type: 'string' },
      },
    ],
    responses: {
      ...redirectResponses(),
      '404': notFound,
      '410': linkGone,
      '429': tooManyMisses,
      ...followFailures,
    },
  };
}

/**
 * What express's res.send answers a conditional GET or HEAD whose condition is false instead of a
 * 200: If-None-Match: * asks for the answer only when there is none (RFC 9110, section 13.1.2).
 */
const notModified = {
  description:
    'Not modified: the request had If-None-Match: *, and there is a representation. No body.',
  headers: { 'X-Request-Id': REQUEST_ID_HEADER },
};

/**
 * An endpoint of the service's own (in the operations tag): a GET, and the HEAD express answers
 * with the same route (the same status and headers, no body).
 */
function operationsEndpoint(operation: {
  operationId: string;
  summary: string;
  description: string;
  parameters?: Record<string, unknown>[];
  responses: Record<string, unknown>;
}) {
  const withConditional = {
    ...operation,
    responses: { ...operation.responses, '304': notModified },
  };
  return {
    get: { tags: ['operations'], ...withConditional },
    head: headOf({
      tags: ['operations'],
      ...withConditional,
      operationId: `${operation.operationId}Head`,
      summary: `${operation.summary} (headers only)`,
    }),
  };
}

/**
 * The OpenAPI 3.1 document of the whole HTTP interface, built from the code it describes: the
 * body's field rules from the core's zod schemas, the statuses and codes from the error catalogue
 * and the REST mapping. Served at GET /openapi.json and committed as gateway-http/openapi.json.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'shortlink',
      version: '1.0.0',
      summary: 'Creates short links and follows them.',
      description:
        'Every answer under /api is JSON `{"data", "code", "errors"}`: code 0 and the data on success, `data: null`, the numeric code of the first failing stage and one message per failure otherwise. Metrics are served on a separate port (METRICS_PORT, GET /metrics), not here.',
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [
      { name: 'links', description: 'Creating and following short links.' },
      { name: 'operations', description: 'Health, readiness and this description.' },
    ],
    paths: {
      '/api/create': {
        post: {
          tags: ['links'],
          operationId: 'createShortLink',
          summary: 'Create a short link',
          description:
            'Checks, in order: token (3, 10, 11), rate limit (19), Idempotency-Key format (27), body (21, 22, 20), organization (4, 12, 13, 17), idempotency (replay, 25, 26), group (5, 14), fields (6-9, 16; every failing field reported), anti-phishing (18), alias availability (15). A failed request stores nothing, except that a 23 after the link was written (the store did not confirm the write in time) may leave the link stored. Every answer after the token check carries the rate-limit headers.',
          security: [{ bearerAuth: [] }],
          parameters: [
            {
              name: 'X-Request-Id',
              in: 'header',
              required: false,
              description: 'An id to echo back and log with the request.',
              schema: { type: 'string' },
            },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description: `Makes the create safe to retry: the first request with a key runs and its answer (success or a recorded failure: 5-9, 14-16, 18) is kept for IDEMPOTENCY_TTL_SECONDS; a repeat with the same key and the same body gets that answer again, marked \`${IDEMPOTENT_REPLAYED_FIELD}: true\`, once it passes the organization checks (4, 12, 13, 17) again. Scoped to the token's user. One key never makes two links. The same key with another body: 25; while the first still runs: 26 (409, Retry-After); a malformed key: 27.`,
              schema: {
                type: 'string',
                minLength: 1,
                maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
                pattern: '^[\\x21-\\x7e]+$',
              },
              example: 'b7f1c1a4-6f0e-4a53-9d3e-2f4f1c8a9e10',
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CreateShortLinkRequest' },
                examples: {
                  generated: {
                    summary: 'A generated alias',
                    value: {
                      organization_key: '<organization secret key>',
                      url_group_id: '1',
                      url: 'https://example.com/a/long/path?q=1',
                    },
                  },
                  chosen: {
                    summary: 'A chosen alias and a temporary redirect',
                    value: {
                      organization_key: '<organization secret key>',
                      url_group_id: '1',
                      url: 'https://example.com/spring',
                      alias: 'spring-sale',
                      redirect_type: 302,
                    },
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Created.',
              headers: {
                'X-Request-Id': REQUEST_ID_HEADER,
                ...rateLimitHeaders(true),
                ...IDEMPOTENT_REPLAYED_HEADER,
              },
              content: {
                'application/json': {
                  schema: envelopeSchema({
                    data: { $ref: '#/components/schemas/ShortLink' },
                    code: { const: 0 },
                    errors: { type: 'array', maxItems: 0, items: { type: 'string' } },
                  }),
                  examples: {
                    created: {
                      summary: 'Created',
                      value: {
                        data: {
                          id: 1,
                          short_url: 'https://acme.link/spring-sale',
                          url: 'https://example.com/spring',
                          domain: 'acme.link',
                          alias: 'spring-sale',
                          redirect_type: 302,
                        },
                        code: 0,
                        errors: [],
                      },
                    },
                  },
                },
              },
            },
            ...createErrorResponses(),
          },
        },
      },
      '/api/{endpoint}': {
        get: {
          tags: ['operations'],
          operationId: UNKNOWN_ENDPOINT_OPERATION,
          summary: 'Any path or method not documented here',
          description:
            'Stands for every path and method not documented here. Any other path under /api, any other path of more than one segment, and any method not documented for a path are answered 404, code 24, except on /api/create, which serves POST alone: any other method there is answered 405, code 2, with `Allow: POST`. Paths are case-sensitive: /API/create is such a path.',
          parameters: [
            {
              name: 'endpoint',
              in: 'path',
              required: true,
              description: 'Any path segment ("create" with a method other than POST: 405).',
              schema: { type: 'string' },
            },
          ],
          responses: { '404': notFound, '405': methodNotAllowed },
        },
      },
      '/{alias}': {
        get: followOperation('followShortLink', 'Follow a short link'),
        head: headOf(followOperation('followShortLinkHead', 'Follow a short link (headers only)')),
      },
      '/healthz': operationsEndpoint({
        operationId: 'health',
        summary: 'Liveness',
        description: 'Answers 200 while the process runs.',
        responses: { '200': withRequestId('The process runs.', jsonStatus(['ok'])) },
      }),
      '/readyz': operationsEndpoint({
        operationId: 'readiness',
        summary: 'Readiness',
        description: 'Answers 200 only when the store answers and the server is not shutting down.',
        responses: {
          '200': withRequestId('Ready.', jsonStatus(['ready'])),
          '503': withRequestId(
            'Shutting down, or the store does not answer.',
            jsonStatus(['shutting_down', 'store_unavailable']),
          ),
        },
      }),
      [OPENAPI_PATH]: operationsEndpoint({
        operationId: 'openApiDocument',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of the HTTP interface.',
        responses: {
          '200': withRequestId('The document.', {
            'application/json': { schema: { type: 'object' } },
          }),
        },
      }),
      [DOCS_PATH]: operationsEndpoint({
        operationId: 'apiReference',
        summary: 'API reference page',
        description:
          'An interactive reference of this document (Swagger UI, served by the service itself) where a create can be sent.',
        responses: {
          '200': withRequestId('The page.', { 'text/html': { schema: { type: 'string' } } }),
        },
      }),
      [`${DOCS_PATH}/{file}`]: operationsEndpoint({
        operationId: 'apiReferenceFile',
        summary: 'A file of the API reference page',
        description:
          "The page's own files: its start script, and Swagger UI's script, style sheet and icon from the swagger-ui-dist package. Any other name: 404, code 24.",
        parameters: [
          {
            name: 'file',
            in: 'path',
            required: true,
            description: 'A file the page loads.',
            schema: { type: 'string', examples: ['swagger-ui-bundle.js'] },
          },
        ],
        responses: {
          '200': withRequestId('The file.', {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          }),
          '404': notFound,
        },
      }),
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal access token: `Authorization: Bearer <token>`.',
        },
      },
      schemas: {
        CreateShortLinkRequest: createRequestSchema,
        ShortLink: shortLinkSchema,
      },
    },
  };
}
