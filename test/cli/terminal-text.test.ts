import { createRescanTerminal } from '../../core/cli/rescan-terminal';
import { noCounts } from '../../core/cli/rescan-checkpoint';
import { terminalText } from '../../core/cli/terminal-text';
import type { LinkRecord } from '../../core/ports/link-store';

describe('terminalText', () => {
  it.each([
    '0000',
    '0007',
    '0009',
    '000a',
    '000d',
    '001b',
    '001f',
    '007f',
    '0080',
    '009b',
    '009f',
    '061c',
    '200e',
    '200f',
    '2028',
    '2029',
    '202a',
    '202e',
    '2066',
    '2069',
  ])('writes U+%s as its \\u escape', (hex) => {
    expect(terminalText(`a${String.fromCharCode(parseInt(hex, 16))}b`)).toBe(`a\\u${hex}b`);
  });

  it('leaves printable text alone, whatever its script', () => {
    const text = 'Bücher ~ 日本語 😀 שלום مرحبا \\u001b "quoted" \u00a0\u00ff\u2027\u202f\u206a';
    expect(terminalText(text)).toBe(text);
  });

  it('keeps a line of JSON valid JSON that reads back the same text', () => {
    const value = { reason: 'x\x1b]52;c;eA==\x07\r\n\u202eevil\u2066\u009b\u2028' };
    const line = terminalText(JSON.stringify(value));
    expect(line).toBe(
      '{"reason":"x\\u001b]52;c;eA==\\u0007\\r\\n\\u202eevil\\u2066\\u009b\\u2028"}',
    );
    expect(JSON.parse(line)).toEqual(value);
  });
});

describe("a rescan's terminal", () => {
  it('prints the disabled link and the notes escaped, and still draws its bar with CR', () => {
    const out: string[] = [];
    const err: string[] = [];
    const terminal = createRescanTerminal({
      out: { write: (text: string) => out.push(text) },
      err: { write: (text: string) => err.push(text), isTTY: true, columns: 80 },
    });
    terminal.started(null, noCounts(), 1);
    const link = { id: 7, scheme: 'https', domain: 'acme.link', alias: 'a' } as LinkRecord;
    terminal.disabled(link, 'rescan: \x1b[2Jblocklist\u202e');
    terminal.note('admin: warning: https://evil.example/\r\nforged\x07');
    expect(out).toEqual([
      'disabled link 7 https://acme.link/a (rescan: \\u001b[2Jblocklist\\u202e)\n',
    ]);
    expect(err.join('')).toContain(
      'admin: warning: https://evil.example/\\u000d\\u000aforged\\u0007\n',
    );
    expect(err.join('')).toMatch(/^\rrescan \[-+\]/);
  });
});
