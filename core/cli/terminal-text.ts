/**
 * Characters a terminal acts on instead of showing: the C0 controls (ESC starts the sequences
 * that move the cursor, rewrite the screen or, as OSC 52, write the clipboard; CR and LF start a
 * line of the text's choosing; BEL rings), DEL, the C1 controls (U+009B is a whole CSI to some
 * terminals), the line and paragraph separators, and Unicode's bidirectional marks, embeddings,
 * overrides and isolates, which reorder what follows them so that a text shows as another. A
 * member chooses much of what the CLI prints (a disable reason, names, URLs), and the operator
 * reads it.
 */
const ACTED_ON =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (character: string) =>
  `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` as the CLI may print it on one line: each character a terminal acts on written as its
 * `\uXXXX` escape (ESC as `\u001b`, a right-to-left override as `\u202e`), everything else as it
 * is. The escape is JSON's, so a line of JSON stays valid JSON that reads back the same text.
 */
export function terminalText(text: string): string {
  return text.replace(ACTED_ON, escaped);
}
