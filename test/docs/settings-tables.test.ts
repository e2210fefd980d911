import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceSettingsSchema } from '../../gateway-http/service-settings';
import { ROOT } from '../support/compile-to-temp';
import { markdownLines } from '../support/markdown';

/**
 * The READMEs' settings tables (a header `| variable | default |` or `| setting | default |`)
 * against the one schema of the process's environment (gateway-http/service-settings.ts): every
 * variable is documented, every documented one exists, and each documented default is the one the
 * schema gives.
 */

const DOCUMENTS = [
  'README.md',
  'core/README.md',
  'core/url-guard/README.md',
  'gateway-http/README.md',
  'gateway-grpc/README.md',
];
/** What a table says when a variable has no default. */
const NO_DEFAULT = new Set(['unset', '(none)', '(none: no lookup)', 'empty']);

interface Row {
  document: string;
  line: number;
  name: string;
  default: string;
}

function settingsRows(document: string): Row[] {
  const rows: Row[] = [];
  let inTable = false;
  for (const line of markdownLines(readFileSync(join(ROOT, document), 'utf8'))) {
    const cells = line.text.trim().startsWith('|')
      ? line.text
          .trim()
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim())
      : undefined;
    if (!cells || line.fence) {
      inTable = false;
      continue;
    }
    if (['variable', 'setting'].includes(cells[0]!) && cells[1] === 'default') {
      inTable = true;
      continue;
    }
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0]!)?.[1];
    if (inTable && name) {
      rows.push({ document, line: line.number, name, default: cells[1]! });
    }
  }
  return rows;
}

/** How a table writes a default the schema gives (a flag as 0 or 1, a list comma-separated). */
function written(value: unknown): string | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Array.isArray(value)) return value.join(',');
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : JSON.stringify(value);
}

describe("the READMEs' settings tables match the process's one settings schema", () => {
  const rows = DOCUMENTS.flatMap(settingsRows);
  const declared = Object.keys(serviceSettingsSchema.shape);
  const defaults = serviceSettingsSchema.parse({}) as Record<string, unknown>;

  it('documents every variable, and no variable the schema lacks', () => {
    expect(rows.length).toBeGreaterThan(50);
    const documented = new Set(rows.map((row) => row.name));
    expect(declared.filter((name) => !documented.has(name))).toEqual([]);
    expect(rows.filter((row) => !declared.includes(row.name))).toEqual([]);
  });

  it('finds each variable declared once, with its documentation line just above it', () => {
    const sources = [
      'core/runtime/config.ts',
      'core/runtime/settings.ts',
      'gateway-http/http-config.ts',
      'gateway-grpc/grpc-config.ts',
    ].map((file) => readFileSync(join(ROOT, file), 'utf8').split('\n'));
    const undocumented = declared.filter((name) => {
      const declarations = sources.flatMap((lines) =>
        lines.flatMap((line, index) =>
          new RegExp(`^\\s+${name}: `).test(line) ? [lines[index - 1]?.trim() ?? ''] : [],
        ),
      );
      return declarations.length !== 1 || !declarations[0]!.endsWith('*/');
    });
    expect(undocumented).toEqual([]);
  });

  it("gives each variable the schema's default", () => {
    const wrong = rows.filter((row) => {
      const expected = written(defaults[row.name]);
      return expected === undefined
        ? !NO_DEFAULT.has(row.default)
        : row.default !== `\`${expected}\``;
    });
    expect(wrong.map((row) => ({ ...row, schema: written(defaults[row.name]) }))).toEqual([]);
  });
});
