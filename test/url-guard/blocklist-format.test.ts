import { parseBlocklist } from '../../core/url-guard/blocklist-format';

describe('blocklist file format', () => {
  it('reads one domain per line, with comments, blank lines and odd spacing', () => {
    const text = [
      '# phishing kits seen this week',
      'evil.example',
      '',
      '   Bad.Example.   # trailing comment',
      '*.wild.example',
      'b\u00fccher.example',
      '203.0.113.7',
      '\t',
    ].join('\r\n');
    expect(parseBlocklist(text)).toEqual({
      ok: true,
      domains: [
        'evil.example',
        'bad.example',
        'wild.example',
        'xn--bcher-kva.example',
        '203.0.113.7',
      ],
    });
  });

  it('accepts an empty file (an empty list)', () => {
    expect(parseBlocklist('# nothing yet\n')).toEqual({ ok: true, domains: [] });
  });

  it.each([
    ['evil.example\nhttps://evil.example/path\n', 'line 2'],
    ['evil.example:8080\n', 'line 1'],
    ['good.example\nthis is not a domain\n', 'line 2'],
    ['a@b.example\n', 'line 1'],
  ])('rejects the whole file when a line is not a domain (%#)', (text, where) => {
    const parsed = parseBlocklist(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toContain(where);
  });
});
