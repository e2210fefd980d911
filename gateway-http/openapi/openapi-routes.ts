import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Express } from 'express';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  DOCS_INIT_SCRIPT,
  DOCS_PAGE,
  SWAGGER_UI_FILES,
  swaggerUiDirectory,
  type SwaggerUiFile,
} from './api-reference-page';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from './openapi-document';

/**
 * GET /openapi.json (the document, built once) and GET /docs (Swagger UI on it, with its few
 * files). Registered before the follow route, whose `/:alias` would otherwise take these paths.
 */
export function addOpenApiRoutes(app: Express): void {
  const document = JSON.stringify(buildOpenApiDocument());
  app.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(document);
  });
  app.get(DOCS_PATH, (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.type('html').send(DOCS_PAGE);
  });
  app.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(DOCS_INIT_SCRIPT);
  });
  const directory = swaggerUiDirectory();
  for (const file of Object.keys(SWAGGER_UI_FILES) as SwaggerUiFile[]) {
    // Read once, on first use, and sent whole as the page and the document are: res.sendFile
    // would also answer Range and If-Match / If-Unmodified-Since, and its refusals of those
    // (416, 412) reached the last resort as 500s.
    let contents: Promise<Buffer> | undefined;
    app.get(`${DOCS_PATH}/${file}`, (_req, res, next) => {
      contents ??= readFile(join(directory, file));
      contents.then(
        (bytes) => {
          res.setHeader('Content-Type', SWAGGER_UI_FILES[file]);
          res.setHeader('Cache-Control', 'public, max-age=3600');
          res.send(bytes);
        },
        (error: unknown) => {
          contents = undefined; // read again next time
          next(error);
        },
      );
    });
  }
}
