import { createHash } from 'node:crypto';

/** The pages' only style, inline: a page loads nothing, so it shows the same offline. */
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#222}';

/**
 * A small page of the service's own (a link not followed, the index of `/`): `heading`, then
 * `paragraph` (HTML the service wrote, never a visitor's or a link's text), in the one style.
 */
export function plainPage(heading: string, paragraph: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${heading}</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <h1>${heading}</h1>
    <p>${paragraph}</p>
  </body>
</html>
`;
}

/**
 * Such a page may load and run nothing: its one inline style is allowed by its hash (CSP level 2),
 * not by 'unsafe-inline', so nothing injected into it could style or script anything either.
 */
export const PLAIN_PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
