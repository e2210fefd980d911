import { getAbsoluteFSPath } from 'swagger-ui-dist';
import { DOCS_PATH, OPENAPI_PATH } from './openapi-document';

/** Swagger UI's files the page loads, served from the npm package (no CDN: works offline). */
export const SWAGGER_UI_FILES = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

export type SwaggerUiFile = keyof typeof SWAGGER_UI_FILES;

export const swaggerUiDirectory = (): string => getAbsoluteFSPath();

/**
 * The page keeps every request on this server: scripts, styles, images and the requests "Try it
 * out" sends. Swagger UI sets inline styles and uses data: images; it needs nothing else.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Starts Swagger UI on the document; a script file because the policy allows no inline script. */
export const DOCS_INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default sends the document to an online validator: nothing leaves the server.
    validatorUrl: null,
    displayRequestDuration: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
});
`;

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>shortlink API reference</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;
