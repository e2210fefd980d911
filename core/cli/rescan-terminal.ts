import type { LinkRecord } from '../ports/link-store';
import type { RescanReport } from './link-rescan';
import type { RescanCounts } from './rescan-checkpoint';
import { terminalText } from './terminal-text';

/** The streams a rescan writes to: results on `out`, notes and the progress bar on `err`. */
export interface RescanStreams {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown; isTTY?: boolean; columns?: number };
}

/** The printing side of a rescan: its report, a note for other messages, and the last line. */
interface RescanTerminal extends RescanReport {
  /** Whether a progress bar is drawn (standard error is a terminal): then the links are counted. */
  readonly drawsBar: boolean;
  /** A line for standard error (a warning), printed above the bar. */
  note(line: string): void;
  /** Clears the bar; then the summary, on standard output. */
  finish(summary: string): void;
}

const BAR_WIDTH = 24;
/** The bar is redrawn at most this often: a fast local rescan must not spend its time drawing. */
const REDRAW_MS = 100;

/** `rescanned N links: D disabled, K kept, U undecided, S skipped (disabled already)`. */
export function rescanSummary(counts: RescanCounts, stopped = false): string {
  const said =
    `${counts.checked} ${counts.checked === 1 ? 'link' : 'links'}: ${counts.disabled} disabled, ` +
    `${counts.kept} kept, ${counts.undecided} undecided, ${counts.skipped} skipped (disabled already)`;
  return stopped ? `rescan stopped after ${said}` : `rescanned ${said}`;
}

/**
 * Prints a rescan's progress: each disabled link on standard output as it happens, waits and
 * notes on standard error, and on a terminal a progress bar drawn in place with `\r` (no
 * library: one line, cleared before any other line is printed).
 */
export function createRescanTerminal(
  streams: RescanStreams,
  now: () => number = Date.now,
): RescanTerminal {
  const drawsBar = streams.err.isTTY === true;
  let total: number | undefined;
  let finishedBefore = 0;
  let shown = '';
  let lastDrawn = -Infinity;

  const clear = () => {
    if (shown === '') return;
    streams.err.write(`\r${' '.repeat(shown.length)}\r`);
    shown = '';
  };
  const draw = (counts: RescanCounts, force = false) => {
    if (!drawsBar || total === undefined) return;
    if (!force && now() - lastDrawn < REDRAW_MS) return;
    lastDrawn = now();
    const done = counts.checked + counts.skipped - finishedBefore;
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * BAR_WIDTH);
    let line =
      `rescan [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ` +
      `${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total} links, ${counts.disabled} disabled`;
    // One line only: a line wider than the terminal wraps, and `\r` would return to its last row.
    const columns = streams.err.columns ?? 80;
    if (line.length > columns - 1) line = line.slice(0, Math.max(0, columns - 1));
    const padding = ' '.repeat(Math.max(0, shown.length - line.length));
    streams.err.write(`\r${line}${padding}`);
    shown = line;
  };
  const above = (write: () => void, counts?: RescanCounts) => {
    const redraw = shown !== '';
    clear();
    write();
    if (redraw && counts) draw(counts, true);
  };
  let latest: RescanCounts | undefined;

  return {
    drawsBar,
    started(resumedAfter, counts, ahead) {
      total = ahead;
      finishedBefore = counts.checked + counts.skipped;
      latest = counts;
      if (resumedAfter !== null) {
        streams.err.write(
          `admin: continuing the rescan below link ${resumedAfter} (${finishedBefore} links finished before)\n`,
        );
      }
      draw(counts, true);
    },
    disabled(link: LinkRecord, reason: string) {
      above(() => {
        const line = `disabled link ${link.id} ${link.scheme}://${link.domain}/${link.alias} (${reason})`;
        streams.out.write(`${terminalText(line)}\n`);
      }, latest);
    },
    waiting(seconds) {
      above(() => {
        streams.err.write(
          `admin: the reputation lookup's quota is used up: waiting ${seconds} s, then going on\n`,
        );
      }, latest);
    },
    progress(counts) {
      latest = counts;
      draw(counts);
    },
    note(line) {
      // A guard's warning may quote a stored URL.
      above(() => streams.err.write(`${terminalText(line)}\n`), latest);
    },
    finish(summary) {
      clear();
      streams.out.write(`${summary}\n`);
    },
  };
}
