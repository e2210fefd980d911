import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { headingAnchors, headingSlug, relativeLinks, webLinks } from './markdown-links';

const ROOT = path.resolve(__dirname, '../..');
const MAX_ROOT_README_LINES = 300;

/** Files a fresh clone has: tracked ones, plus new ones not ignored (so a link is checked before commit). */
function repositoryFiles(): string[] {
  const output = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return output.split('\n').filter((file) => file !== '');
}

const files = repositoryFiles();
const fileSet = new Set(files);
const markdownFiles = files.filter((file) => file.endsWith('.md'));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Why the link does not resolve, or undefined when it does. */
function brokenReason(from: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#', 2);
  const resolved =
    pathPart === ''
      ? from
      : path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(pathPart)));
  const asDirectory = resolved.replace(/\/$/, '') + '/';
  const isFile = fileSet.has(resolved);
  if (!isFile && !files.some((file) => file.startsWith(asDirectory))) {
    return `${resolved} is not a file or folder of the repository`;
  }
  if (anchor !== undefined && anchor !== '') {
    if (!isFile || !resolved.endsWith('.md'))
      return `#${anchor} points into ${resolved}, which has no headings`;
    if (!headingAnchors(read(resolved)).has(anchor)) return `${resolved} has no heading #${anchor}`;
  }
  return undefined;
}

describe('the documentation', () => {
  it('has a root README of at most 300 lines', () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_ROOT_README_LINES);
  });

  it('has a README next to each part, linked from the root README', () => {
    const rootLinks = relativeLinks(read('README.md')).map((link) => link.target.split('#')[0]);
    for (const part of [
      'gateway-http/README.md',
      'gateway-grpc/README.md',
      'core/README.md',
      'core/adapters/mongodb/README.md',
      'core/adapters/redis/README.md',
      'core/url-guard/README.md',
      'test/README.md',
      'test/bench/README.md',
    ]) {
      expect(markdownFiles).toContain(part);
      expect(rootLinks).toContain(part);
    }
  });

  it('links only to files, folders and headings that exist in the repository', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of markdownFiles) {
      for (const link of relativeLinks(read(file))) {
        checked += 1;
        const reason = brokenReason(file, link.target);
        if (reason) broken.push(`${file}:${link.line} (${link.target}): ${reason}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20); // the reader really found the links
  });

  it('never points outside the repository with a relative path', () => {
    const outside = markdownFiles.flatMap((file) =>
      relativeLinks(read(file))
        .filter((link) => path.posix.join(path.posix.dirname(file), link.target).startsWith('..'))
        .map((link) => `${file}:${link.line} ${link.target}`),
    );
    expect(outside).toEqual([]);
  });

  it('has no link to a web address: every link stays in the repository', () => {
    const web = markdownFiles.flatMap((file) =>
      webLinks(read(file)).map((link) => `${file}:${link.line} ${link.target}`),
    );
    expect(web).toEqual([]);
  });
});

describe('the Markdown link reader', () => {
  const sample = [
    '# Title',
    'See [the core](core/README.md#the-create-procedure), [a site](https://example.com) and',
    '![a picture](docs/p.png "caption"), not `[code](nope.md)`.',
    '```sh',
    '# not a heading; [not](a-link.md)',
    '```',
    '[ref]: ../outside.md',
    "## Why the HTTP server builds `express`'s objects",
    '## Title',
  ].join('\n');

  it('finds inline, image and reference links, and skips code and absolute URLs', () => {
    expect(relativeLinks(sample)).toEqual([
      { target: 'core/README.md#the-create-procedure', line: 2 },
      { target: 'docs/p.png', line: 3 },
      { target: '../outside.md', line: 7 },
    ]);
  });

  it('finds web addresses: link targets with a scheme, autolinks and bare ones, not in code', () => {
    const page = [
      'See [a site](https://example.com/a), <http://example.org> and www.example.net.',
      'Also [mail](mailto:a@example.com), [host](//cdn.example.com/x.js) and [local](core/README.md).',
      '`curl http://127.0.0.1:8080/healthz` is code.',
      '```yaml',
      "targets: ['http://127.0.0.1:9464']",
      '```',
      '[ref]: https://example.com/ref',
    ].join('\n');
    expect(webLinks(page)).toEqual([
      { target: 'https://example.com/a', line: 1 },
      { target: 'http://example.org', line: 1 },
      { target: 'www.example.net', line: 1 },
      { target: 'mailto:a@example.com', line: 2 },
      { target: '//cdn.example.com/x.js', line: 2 },
      { target: 'https://example.com/ref', line: 7 },
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect(headingSlug('Following a link: `GET` / `HEAD /<alias>`')).toBe(
      'following-a-link-get--head-alias',
    );
    expect([...headingAnchors(sample)]).toEqual([
      'title',
      'why-the-http-server-builds-expresss-objects',
      'title-1',
    ]);
  });
});
