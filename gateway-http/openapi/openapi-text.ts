import { buildOpenApiDocument } from './openapi-document';

/** The committed file's exact text: what `npm run openapi:generate` writes and CI compares. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
