import type { IncomingHttpHeaders } from 'node:http';
import OpenAPIBackend, { type Document } from 'openapi-backend';
import { methodNotAllowed, notFound } from '../../gateway-http/openapi/error-responses';
import { buildOpenApiDocument } from '../../gateway-http/openapi/openapi-document';

/** One HTTP exchange as a test saw it. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

let validator: Promise<OpenAPIBackend> | undefined;

/**
 * The answers to what the document lists no operation for (its description says them: 404, code
 * 24; 405, code 2, on /api/create), as an operation of the validator's own copy of the document,
 * never of the one served: the reference page lists only real operations.
 */
const UNLISTED = 'unlistedRequest';
const UNLISTED_PATH = '/.unlisted';

function documentWithUnlisted(): Document {
  const document = buildOpenApiDocument() as unknown as Document;
  return {
    ...document,
    paths: {
      ...document.paths,
      [UNLISTED_PATH]: {
        get: { operationId: UNLISTED, responses: { '404': notFound, '405': methodNotAllowed } },
      },
    },
  } as Document;
}

/**
 * openapi-backend on the document the service serves: it matches operations and validates with
 * Ajv. `quick` skips its own check of the document, which knows only OpenAPI 3.0's shape; the
 * document is linted as 3.1 by Spectral (`npm run openapi:lint`) instead.
 */
function openApiValidator(): Promise<OpenAPIBackend> {
  validator ??= new OpenAPIBackend({
    definition: documentWithUnlisted(),
    validate: true,
    quick: true,
    strict: true,
    // As the service routes: /api/create/ is not /api/create.
    ignoreTrailingSlashes: false,
  }).init();
  return validator;
}

function bodyOf(exchange: Exchange): unknown {
  if (exchange.text === '') return undefined;
  const type = String(exchange.headers['content-type'] ?? '');
  return type.startsWith('application/json')
    ? (JSON.parse(exchange.text) as unknown)
    : exchange.text;
}

/**
 * What is wrong with `exchange` by the OpenAPI document (an empty list when it conforms): the
 * operation must be documented, its answer's status documented for it, and the body and the
 * headers valid against that status's schemas. Checked by openapi-backend (Ajv), not by hand.
 */
export async function openApiViolations(exchange: Exchange): Promise<string[]> {
  const api = await openApiValidator();
  const [pathname = '', query = ''] = exchange.path.split('?', 2);
  // A HEAD is answered as its GET (without the body); a path or method the document does not
  // list, as its description says.
  const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase();
  const operation =
    api.matchOperation({ method, path: pathname, query, headers: {} }) ??
    api.getOperation(UNLISTED);
  const what = `${exchange.method} ${pathname} -> ${exchange.status}`;
  if (!operation) return [`${what}: no operation of the OpenAPI document matches`];
  const documented = operation.responses?.[String(exchange.status)] as
    | { headers?: Record<string, { required?: boolean }>; content?: Record<string, unknown> }
    | undefined;
  if (!documented) return [`${what}: status not documented for ${operation.operationId}`];
  const problems: string[] = [];
  // The answer's media type must be one the document lists for the status (a HEAD's is its
  // GET's). openapi-backend validates JSON bodies only (against the application/json schema,
  // whatever the answer's type), so a body of another type is checked by its type alone.
  const mediaType = String(exchange.headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();
  const isJson = mediaType === 'application/json';
  if (mediaType !== '' && !(mediaType in (documented.content ?? {}))) {
    problems.push(`${what}: media type ${mediaType} not documented`);
  }
  // A HEAD answer has no body by HTTP's rules; its headers are those of GET.
  if (exchange.method !== 'HEAD' && (isJson || exchange.text === '')) {
    const body = api.validateResponse(bodyOf(exchange), operation, exchange.status);
    for (const error of body.errors ?? []) {
      problems.push(`${what}: body ${error.instancePath || '/'} ${error.message ?? ''}`);
    }
  }
  // openapi-backend validates the values of the headers present ('any'); it does not read the
  // headers' `required` flags, so their presence is checked from the document here.
  const headers = api.validateResponseHeaders(exchange.headers, operation, {
    statusCode: exchange.status,
    setMatchType: 'any' as never,
  });
  for (const error of headers.errors ?? []) {
    problems.push(`${what}: headers ${error.instancePath || '/'} ${error.message ?? ''}`);
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && exchange.headers[name.toLowerCase()] === undefined) {
      problems.push(`${what}: required header ${name} missing`);
    }
  }
  return problems;
}

/** Throws, listing what is wrong, when `exchange` does not conform to the OpenAPI document. */
export async function expectConforming(exchange: Exchange): Promise<void> {
  const violations = await openApiViolations(exchange);
  if (violations.length > 0) {
    throw new Error(`the answer does not match the OpenAPI document:\n${violations.join('\n')}`);
  }
}

/**
 * `fetch` to the service's REST port whose answer is checked against the OpenAPI document, for
 * tests that talk to a whole service rather than through the HTTP fixture. Resolves with the
 * status, the headers and the body as text.
 */
export async function conformingFetch(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const answer = await fetch(url, init);
  const text = await answer.text();
  const { pathname, search } = new URL(url);
  await expectConforming({
    method: init.method ?? 'GET',
    path: pathname + search,
    status: answer.status,
    headers: Object.fromEntries(answer.headers),
    text,
  });
  return { status: answer.status, headers: answer.headers, text };
}
