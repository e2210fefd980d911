import { IDEMPOTENT_REPLAYED_FIELD } from '../../core';

/** The headers the document describes, each declared once for every answer that has it. */

export const REQUEST_ID_HEADER = {
  description:
    'The request id: the caller\'s X-Request-Id when it is 1-64 characters of "A-Za-z0-9._-", else a fresh UUID.',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
};

export function rateLimitHeaders(required: boolean): Record<string, unknown> {
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

export const retryAfter = (required: boolean, description: string) => ({
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
export const IDEMPOTENT_REPLAYED_HEADER = {
  [IDEMPOTENT_REPLAYED_FIELD]: {
    description:
      'Present, with the value `true`, only when this answer is the recorded answer of an earlier request with the same Idempotency-Key, sent again.',
    required: false,
    schema: { type: 'string', const: 'true' },
  },
};

/** A response whose only header is the X-Request-Id every answer carries. */
export function withRequestId(description: string | undefined, content: Record<string, unknown>) {
  return { description, headers: { 'X-Request-Id': REQUEST_ID_HEADER }, content };
}
