import { headings, withoutFences } from '../support/markdown';

/**
 * The relative link targets of a document and the anchors its headings get on GitHub. Code
 * (fenced blocks, inline spans) is removed first: `[x](y)` inside code is not a link.
 */

export interface MarkdownLink {
  /** The target as written, e.g. `../core/README.md#configuration`. */
  target: string;
  line: number;
}

/** Blanks out fenced code blocks and inline code spans, keeping line numbers. */
export function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[^`]*?\1/g, '');
}

const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** A document's lines outside code, each with the link targets written on it. */
function linesWithTargets(
  markdown: string,
): Array<{ text: string; line: number; targets: string[] }> {
  return withoutCode(markdown)
    .split('\n')
    .map((text, index) => {
      const targets = [...text.matchAll(INLINE_LINK)].map((match) => match[1] ?? '');
      const definition = REFERENCE_DEFINITION.exec(text)?.[1];
      if (definition !== undefined) targets.push(definition);
      return { text, line: index + 1, targets };
    });
}

const leavesRepository = (target: string) => HAS_SCHEME.test(target) || target.startsWith('//');

/** Every link of the document that stays inside the repository (no scheme, not `//host`). */
export function relativeLinks(markdown: string): MarkdownLink[] {
  return linesWithTargets(markdown).flatMap(({ line, targets }) =>
    targets
      .filter((target) => target !== '' && !leavesRepository(target))
      .map((target) => ({ target, line })),
  );
}

/** An address GitHub links even when written bare: `http://`, `https://` or `www.`. */
const WEB_ADDRESS = /\b(?:https?:\/\/|www\.)[^\s)>\]]*/g;

/**
 * Every link of the document that leaves the repository: a target with a scheme or `//host`, and
 * any web address in the text, bare or in `<...>` (GitHub links both). Code is not read, so an
 * address in a command or a config example is not a link.
 */
export function webLinks(markdown: string): MarkdownLink[] {
  return linesWithTargets(markdown).flatMap(({ text, line, targets }) => {
    const found = new Set(targets.filter(leavesRepository));
    for (const match of text.matchAll(WEB_ADDRESS)) {
      // A sentence's closing punctuation is not part of the address (GitHub leaves it out too).
      const address = match[0].replace(/[.,;:!?]+$/, '');
      if (![...found].some((target) => target.includes(address))) found.add(address);
    }
    return [...found].map((target) => ({ target, line }));
  });
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading, numbered as GitHub numbers repeats (`x`, `x-1`, `x-2`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of headings(markdown)) {
    const slug = headingSlug(heading.text);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
