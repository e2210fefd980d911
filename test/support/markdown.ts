/**
 * Just enough Markdown structure for the documentation tests: which lines are fenced code (a
 * `# comment` in a shell block is not a heading, `[x](y)` in code is not a link), the headings,
 * and the code blocks of a section.
 */

export interface MarkdownLine {
  text: string;
  /** 1-based. */
  number: number;
  /** The language of the fenced block this line is in (`''` when none is given), delimiters included. */
  fence?: { language: string; delimiter: boolean } | undefined;
}

export function markdownLines(markdown: string): MarkdownLine[] {
  let open: { marker: string; language: string } | undefined;
  return markdown.split('\n').map((text, index) => {
    const number = index + 1;
    if (open === undefined) {
      const opening = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(text);
      if (!opening) return { text, number };
      open = { marker: opening[1]!, language: opening[2] ?? '' };
      return { text, number, fence: { language: open.language, delimiter: true } };
    }
    const { language, marker } = open;
    const closing = text.trim().startsWith(marker) && text.trim().replace(/[`~]/g, '') === '';
    if (closing) open = undefined;
    return { text, number, fence: { language, delimiter: closing } };
  });
}

/** The document with fenced code blocks blanked out, line numbers kept. */
export function withoutFences(markdown: string): string {
  return markdownLines(markdown)
    .map((line) => (line.fence ? '' : line.text))
    .join('\n');
}

export interface Heading {
  text: string;
  level: number;
  line: number;
}

export function headings(markdown: string): Heading[] {
  return markdownLines(markdown).flatMap((line) => {
    const match = line.fence ? null : /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line.text);
    return match ? [{ level: match[1]!.length, text: match[2]!, line: line.number }] : [];
  });
}

/** The fenced blocks of `language` between the heading `heading` and the next heading. */
export function sectionCodeBlocks(markdown: string, heading: string, language: string): string[] {
  const all = headings(markdown);
  const start = all.find((candidate) => candidate.text === heading);
  if (!start) throw new Error(`no heading "${heading}"`);
  const end = all.find((candidate) => candidate.line > start.line)?.line ?? Infinity;
  const blocks: string[][] = [];
  for (const line of markdownLines(markdown)) {
    if (line.number <= start.line || line.number >= end || line.fence?.language !== language) {
      continue;
    }
    if (line.fence.delimiter) {
      if (/^\s{0,3}(`{3,}|~{3,})\s*\S/.test(line.text)) blocks.push([]); // the opening line
      continue;
    }
    blocks[blocks.length - 1]?.push(line.text);
  }
  return blocks.map((block) => block.join('\n'));
}

/**
 * The body rows of the first table whose header line starts with `header` (after indentation),
 * each as its trimmed cells.
 */
export function markdownTableAfter(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) throw new Error(`no table with the header "${header}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/**
 * The error codes a piece of prose lists, in order: "3, 10, 11", "5 to 9, 14 to 16 and 18",
 * "4-9", "code 22". Anything else in the text (a word without digits) names none.
 */
export function codesIn(text: string): number[] {
  const codes: number[] = [];
  for (const match of text.matchAll(/(\d+)(?:\s*(?:-|–|to)\s*(\d+))?/g)) {
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    for (let code = first; code <= last; code += 1) codes.push(code);
  }
  return codes.sort((a, b) => a - b);
}
