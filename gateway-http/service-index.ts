import type { Express } from 'express';
import { DOCS_PATH, OPENAPI_PATH } from './openapi/openapi-document';
import { plainPage, PLAIN_PAGE_CONTENT_SECURITY_POLICY } from './plain-page';

/** What GET / answers a client that prefers JSON: where the HTTP interface is described. */
export const SERVICE_INDEX = { docs: DOCS_PATH, openapi: OPENAPI_PATH } as const;

/** What it answers a browser (and any other client): the same, as a page with the two links. */
export const SERVICE_INDEX_PAGE = plainPage(
  'shortlink',
  `This server makes short links and follows them. Its HTTP interface is described on the <a href="${DOCS_PATH}">API reference page</a> and in the <a href="${OPENAPI_PATH}">OpenAPI document</a>.`,
);
const PAGE_BYTES = Buffer.from(SERVICE_INDEX_PAGE);

/**
 * GET / (no alias): a pointer to the reference page rather than a bare 404, negotiated as a link
 * that is not followed is: JSON when the client prefers it by its Accept header, else the page.
 */
export function addServiceIndex(app: Express): void {
  app.get('/', (req, res) => {
    res.setHeader('Vary', 'Accept');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.accepts(['html', 'json']) === 'json') {
      res.json(SERVICE_INDEX);
      return;
    }
    res.setHeader('Content-Security-Policy', PLAIN_PAGE_CONTENT_SECURITY_POLICY);
    res.type('html').send(PAGE_BYTES);
  });
}
