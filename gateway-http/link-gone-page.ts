import { createHash } from 'node:crypto';

/** The page's only style, inline: the page loads nothing, so it shows the same offline. */
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#222}';

/** A page that says `heading` and `text`, in the one style; it names nothing of the link. */
function gonePage(heading: string, text: string): string {
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
    <p>${text}</p>
  </body>
</html>
`;
}

/**
 * What a browser is shown for a link that is not followed (410), by its code: for LINK_DISABLED
 * the same page whatever the reason (disabled, organization inactive, target now refused), for
 * LINK_EXPIRED the same whether by date or by visits, so it tells a visitor nothing about the
 * link, its organization or its target.
 */
export const LINK_GONE_PAGE = gonePage('Link disabled', 'This short link has been disabled.');
export const LINK_EXPIRED_PAGE = gonePage('Link expired', 'This short link has expired.');

export const LINK_GONE_PAGES = { LINK_DISABLED: LINK_GONE_PAGE, LINK_EXPIRED: LINK_EXPIRED_PAGE };

/** The codes of a link that is not followed. */
export type LinkGoneReason = keyof typeof LINK_GONE_PAGES;

/**
 * The page may load and run nothing: its one inline style is allowed by its hash (CSP level 2),
 * not by 'unsafe-inline', so nothing injected into it could style or script anything either.
 */
export const LINK_GONE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
