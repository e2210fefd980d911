import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedLookup {
  method: string;
  path: string;
  key: string | null;
  body: unknown;
}

type Mode =
  { kind: 'answer' } | { kind: 'hang' } | { kind: 'status'; status: number; location?: string };

/**
 * A local stand-in for a Safe Browsing v4 Lookup service: answers `threatMatches:find` from a
 * table of known threats, or misbehaves on demand (hang, error status, held answers).
 */
export interface FakeSafeBrowsing {
  readonly url: string;
  readonly requests: RecordedLookup[];
  readonly threats: Map<string, { threatType: string; cacheDuration?: string }>;
  mode: Mode;
  /** Holds every answer until the returned function is called. */
  hold(): () => void;
  close(): Promise<void>;
}

export async function startFakeSafeBrowsing(): Promise<FakeSafeBrowsing> {
  const threats = new Map<string, { threatType: string; cacheDuration?: string }>();
  const requests: RecordedLookup[] = [];
  const hanging = new Set<ServerResponse>();
  let gate: Promise<void> = Promise.resolve();

  const answer = async (req: IncomingMessage, res: ServerResponse, text: string) => {
    const address = new URL(req.url ?? '/', 'http://fake');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({
      method: req.method ?? '',
      path: address.pathname,
      key: address.searchParams.get('key'),
      body,
    });
    await gate;
    if (fake.mode.kind === 'hang') {
      hanging.add(res);
      return;
    }
    if (fake.mode.kind === 'status') {
      if (fake.mode.location) res.setHeader('Location', fake.mode.location);
      res.writeHead(fake.mode.status).end('{}');
      return;
    }
    const entries =
      (body as { threatInfo?: { threatEntries?: Array<{ url: string }> } }).threatInfo
        ?.threatEntries ?? [];
    const matches = entries.flatMap((entry) => {
      const threat = threats.get(entry.url);
      return threat
        ? [
            {
              threatType: threat.threatType,
              platformType: 'ANY_PLATFORM',
              threatEntryType: 'URL',
              threat: { url: entry.url },
              cacheDuration: threat.cacheDuration ?? '300s',
            },
          ]
        : [];
    });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(matches.length > 0 ? { matches } : {}));
  };

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => void answer(req, res, text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeSafeBrowsing = {
    url: `http://127.0.0.1:${port}`,
    requests,
    threats,
    mode: { kind: 'answer' },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
