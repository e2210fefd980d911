import { IDEMPOTENT_REPLAYED_FIELD, MAX_IDEMPOTENCY_KEY_LENGTH } from '../../core';
import { createErrorResponses } from './error-responses';
import { IDEMPOTENT_REPLAYED_HEADER, rateLimitHeaders, REQUEST_ID_HEADER } from './headers';
import { envelopeSchema } from './schemas';

/** `POST /api/create`: its checks in order, its headers, its body and every answer. */
export const createOperation = {
  tags: ['links'],
  operationId: 'createShortLink',
  summary: 'Create a short link',
  description:
    'Checks, in order: token (3, 10, 11), rate limit (19), Idempotency-Key format (27), body (21, 22, 20), organization (4, 12, 13, 17), idempotency (replay, 25, 26), group (5, 14), fields (6-9, 16, 31, 32; every failing field reported), anti-phishing (18), alias availability (15). A failed request stores nothing, except that a 23 after the link was written (the store did not confirm the write in time) may leave the link stored. Every answer after the token check carries the rate-limit headers.',
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
      description: `Makes the create safe to retry: the first request with a key runs and its answer (success or a recorded failure: 5-9, 14-16, 18, 31, 32) is kept for IDEMPOTENCY_TTL_SECONDS; a repeat with the same key and the same body gets that answer again, marked \`${IDEMPOTENT_REPLAYED_FIELD}: true\`, once it passes the organization checks (4, 12, 13, 17) again. Scoped to the token's user. One key never makes two links. The same key with another body: 25; while the first still runs: 26 (409, Retry-After); a malformed key: 27.`,
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
          limited: {
            summary: 'A link that expires, by date and after 100 redirects',
            value: {
              organization_key: '<organization secret key>',
              url_group_id: '1',
              url: 'https://example.com/launch',
              expires_at: '2030-06-30T23:59:59+02:00',
              max_visits: 100,
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
};
