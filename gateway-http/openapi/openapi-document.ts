import { createOperation } from './create-operation';
import { notFound } from './error-responses';
import { followOperation } from './follow-operation';
import { withRequestId } from './headers';
import { jsonStatus, operationsEndpoint } from './operations-endpoints';
import { createRequestSchema, shortLinkSchema } from './schemas';

/** Paths the service answers itself, named once for the routes and the document. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * What the document says of the requests no operation describes: a HEAD (answered as its GET,
 * without the body) and an unlisted path or method (error-responses.ts: notFound,
 * methodNotAllowed). Neither is an operation of its own, so the reference page lists only the
 * operations there are.
 */
export const UNLISTED_REQUESTS =
  'Every GET also answers HEAD: the same status and headers, without the body. Any other path or method answers 404, code 24, but /api/create, which answers any method other than POST with 405, code 2, and `Allow: POST`. Paths are case-sensitive: /API/create is another path.';

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
        'Every answer under /api is JSON `{"data", "code", "errors"}`: code 0 and the data on success, `data: null`, the numeric code of the first failing stage and one message per failure otherwise. ' +
        UNLISTED_REQUESTS +
        ' Metrics are served on a separate port (METRICS_PORT, GET /metrics), not here.',
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [
      { name: 'links', description: 'Creating and following short links.' },
      {
        name: 'operations',
        description: 'Health, readiness, this description and where to find it.',
      },
    ],
    paths: {
      '/api/create': { post: createOperation },
      '/{alias}': { get: followOperation('followShortLink', 'Follow a short link') },
      '/': operationsEndpoint({
        operationId: 'serviceIndex',
        summary: 'Where the interface is described',
        description:
          'Names the reference page and this document: as JSON when the client prefers it (its Accept header), otherwise as a small page with the two links.',
        responses: {
          '200': withRequestId('The index.', {
            'application/json': {
              schema: {
                type: 'object',
                required: ['docs', 'openapi'],
                additionalProperties: false,
                properties: {
                  docs: { const: DOCS_PATH, description: 'The API reference page.' },
                  openapi: { const: OPENAPI_PATH, description: 'This document.' },
                },
              },
            },
            'text/html': { schema: { type: 'string' } },
          }),
        },
      }),
      '/healthz': operationsEndpoint({
        operationId: 'health',
        summary: 'Liveness',
        description: 'Answers 200 while the process runs.',
        responses: { '200': withRequestId('The process runs.', jsonStatus(['ok'])) },
      }),
      '/readyz': operationsEndpoint({
        operationId: 'readiness',
        summary: 'Readiness',
        description:
          'Answers 200 only when the store answers, the server is not shutting down and, with WORKERS, every worker listens.',
        responses: {
          '200': withRequestId('Ready.', jsonStatus(['ready'])),
          '503': withRequestId(
            'Starting (WORKERS: not every worker listens yet), shutting down, or the store does not answer.',
            jsonStatus(['starting', 'shutting_down', 'store_unavailable']),
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
