/** One line of the printed table (and of the JSON's `table`). */
export interface Row {
  metric: string;
  subject: number | null;
  baseline: number | null;
  /** subject / baseline, when both exist. */
  ratio: number | null;
  target: string;
  /** null: informational, no target. */
  pass: boolean | null;
}

export function row(
  metric: string,
  subject: number | null,
  baseline: number | null,
  target?: { minRatio?: number; maxRatio?: number; max?: number },
): Row {
  const ratio = subject !== null && baseline !== null && baseline !== 0 ? subject / baseline : null;
  if (target?.maxRatio !== undefined) {
    // For measures where less is better (latency): the subject may exceed the baseline by this much.
    return {
      metric,
      subject,
      baseline,
      ratio,
      target: `ratio <= ${target.maxRatio}`,
      pass: ratio !== null && ratio <= target.maxRatio,
    };
  }
  if (target?.minRatio !== undefined) {
    return {
      metric,
      subject,
      baseline,
      ratio,
      target: `ratio >= ${target.minRatio}`,
      pass: ratio !== null && ratio >= target.minRatio,
    };
  }
  if (target?.max !== undefined) {
    return {
      metric,
      subject,
      baseline,
      ratio,
      target: `<= ${target.max}`,
      pass: subject !== null && subject <= target.max,
    };
  }
  return { metric, subject, baseline, ratio, target: '', pass: null };
}

function cell(value: number | null, digits: number): string {
  if (value === null || Number.isNaN(value)) return '-';
  return value >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(digits);
}

/** A Markdown table (readable in a terminal and pasteable into the README). */
export function formatTable(rows: readonly Row[]): string {
  const header = ['metric', 'subject', 'baseline', 'ratio', 'target', 'result'];
  const lines = rows.map((r) => [
    r.metric,
    cell(r.subject, 2),
    cell(r.baseline, 2),
    cell(r.ratio, 2),
    r.target,
    r.pass === null ? '' : r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  // Markdown alignment: the metric to the left, the numbers to the right.
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}
