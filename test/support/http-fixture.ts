import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import pino, { type Logger } from 'pino';
import type { Core } from '../../core';
import { createHttpApp, type HttpAppOptions } from '../../gateway-http/app';
import { listenHttp } from '../../gateway-http/http-server';
import { expressMessageClasses } from '../../gateway-http/express-message-classes';
import { createTestCore, type CoreFixture, type TestCoreDeps } from './core-fixture';
import { expectConforming } from './openapi-conformance';

export interface HttpRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as the JSON text of this value with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is (set the Content-Type yourself in `headers`). */
  body?: string | Buffer;
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names, as node's http module gives them. */
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
}

export interface HttpFixture {
  port: number;
  baseUrl: string;
  request(options: HttpRequest): Promise<HttpAnswer>;
  /** POST /api/create with a JSON body and `Authorization: Bearer <token>` (when given). */
  create(body: unknown, token?: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  close(): Promise<void>;
}

/**
 * createHttpApp + listenHttp on 127.0.0.1, port 0, and a client on node's http module (it lets a
 * test send any method, Host header, Content-Type or raw body).
 */
export async function startHttp(
  core: Core,
  options: Partial<HttpAppOptions> = {},
): Promise<HttpFixture> {
  const logger: Logger = options.logger ?? pino({ level: 'silent' });
  const app = createHttpApp(core, { ...options, logger });
  const running = await listenHttp(app, {
    port: 0,
    host: '127.0.0.1',
    messageClasses: expressMessageClasses(app),
  });
  const agent = new Agent({ keepAlive: true });

  /** Every answer is checked against the OpenAPI document; one that does not conform fails. */
  const send = async (options: HttpRequest): Promise<HttpAnswer> => {
    const answer = await exchange(options);
    const method = options.method ?? 'GET';
    await expectConforming({ method, path: originForm(options.path), ...answer });
    return answer;
  };

  const exchange = (options: HttpRequest): Promise<HttpAnswer> => {
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | Buffer | undefined = options.body;
    if (options.json !== undefined) {
      payload = JSON.stringify(options.json);
      if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
    }
    if (
      payload !== undefined &&
      !hasHeader(headers, 'content-length') &&
      !hasHeader(headers, 'transfer-encoding')
    ) {
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise<HttpAnswer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: running.port,
          method: options.method ?? 'GET',
          path: options.path,
          headers,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: () => JSON.parse(text) as unknown,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };

  return {
    port: running.port,
    baseUrl: `http://127.0.0.1:${running.port}`,
    request: send,
    create: (body, token, headers = {}) =>
      send({
        method: 'POST',
        path: '/api/create',
        headers: token === undefined ? headers : { authorization: `Bearer ${token}`, ...headers },
        json: body,
      }),
    close: async () => {
      agent.destroy();
      await running.close();
    },
  };
}

/** A test core (`createTestCore(deps)`) and an HTTP gateway serving it. */
export async function startHttpOnTestCore(
  deps: TestCoreDeps = {},
): Promise<{ f: CoreFixture; http: HttpFixture }> {
  const f = await createTestCore(deps);
  return { f, http: await startHttp(f.core) };
}

/** A request target in absolute form (`http://a.link/x?q`) as the path it routes (`/x?q`). */
function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const url = new URL(target);
  return url.pathname + url.search;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
