import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import {
  ERROR_CATALOGUE,
  ERROR_REASONS,
  ErrorCode,
  reasonsWith,
  type ErrorReason,
} from '../../core';
import { GRPC_STATUS_BY_REASON } from '../../gateway-grpc';
import { NEVER_ON_REST } from '../../gateway-http/openapi/error-responses';
import { buildOpenApiDocument } from '../../gateway-http/openapi/openapi-document';
import { HTTP_STATUS_BY_REASON } from '../../gateway-http/status-by-reason';
import { ROOT } from '../support/compile-to-temp';
import { codesIn, markdownTableAfter } from '../support/markdown';

/**
 * The docs restate the error catalogue (core/errors/error-catalogue.ts) and the transports' status
 * tables for readers; these tests fail when a restatement drifts from them.
 */

const readme = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const codesOf = (reasons: readonly ErrorReason[]) =>
  reasons.map((reason) => ErrorCode[reason]).sort((a, b) => a - b);

describe('the error tables of the docs match the catalogue and the status tables', () => {
  it('gateway-http/README.md: one row per code, in order, with its name and HTTP status', () => {
    const rows = markdownTableAfter(readme('gateway-http/README.md'), '| code | reason name');
    expect(rows.map((cells) => [Number(cells[0]), cells[1], Number(cells[2])])).toEqual(
      ERROR_REASONS.map((reason) => [
        ErrorCode[reason],
        `\`${reason}\``,
        HTTP_STATUS_BY_REASON[reason],
      ]),
    );
  });

  it('gateway-grpc/README.md: each gRPC status with exactly the codes mapped to it', () => {
    const rows = markdownTableAfter(readme('gateway-grpc/README.md'), '| codes ');
    const documented = new Map(
      rows.map((cells) => [cells[1]!.replace(/`/g, ''), codesIn(cells[0]!)]),
    );
    const mapped = new Map<string, number[]>();
    for (const reason of ERROR_REASONS) {
      const name = grpcStatus[GRPC_STATUS_BY_REASON[reason]];
      mapped.set(name, [...(mapped.get(name) ?? []), ErrorCode[reason]]);
    }
    // These describe HTTP requests; the README says in prose what they map to.
    const overHttpOnly = new Set<number>(
      codesOf(['METHOD_NOT_ALLOWED', 'CONTENT_TYPE_UNSUPPORTED', 'BODY_TOO_LARGE']),
    );
    for (const [name, codes] of mapped) {
      const shown = codes.filter((code) => !overHttpOnly.has(code));
      if (shown.length > 0) expect([name, documented.get(name)]).toEqual([name, shown]);
    }
    expect([...documented.keys()].every((name) => mapped.has(name))).toBe(true);
  });

  it('gateway-http/README.md names the recorded failures and the service faults as flagged', () => {
    const text = readme('gateway-http/README.md');
    const recorded = /a failure of a stage after the key \(([^)]*)\)/.exec(text);
    expect(codesIn(recorded?.[1] ?? '')).toEqual(codesOf(reasonsWith('recorded')));
    const faults = /The service's own failures \(([^)]*)\)/.exec(text);
    expect(codesIn(faults?.[1] ?? '')).toEqual(codesOf(reasonsWith('serverFault')));
  });

  it("the OpenAPI document's create answers: the codes each status description names", () => {
    const document = buildOpenApiDocument() as {
      paths: Record<string, { post?: { responses: Record<string, { description: string }> } }>;
    };
    const responses = document.paths['/api/create']!.post!.responses;
    for (const [status, { description }] of Object.entries(responses)) {
      if (status === '200') continue;
      const named = [...description.matchAll(/\(([^)]*)\)/g)].flatMap((match) =>
        codesIn(match[1]!),
      );
      const expected = ERROR_REASONS.filter(
        (reason) => HTTP_STATUS_BY_REASON[reason] === Number(status) && !NEVER_ON_REST.has(reason),
      );
      expect([status, named.sort((a, b) => a - b)]).toEqual([status, codesOf(expected)]);
    }
  });

  it('every code has a default message that ends as a sentence and names no secret', () => {
    for (const reason of ERROR_REASONS) {
      const { message } = ERROR_CATALOGUE[reason];
      expect([reason, /[.]$/.test(message)]).toEqual([reason, true]);
      expect(message).not.toMatch(/secret|password|stack/i);
    }
  });
});
