import { REQUEST_ID_HEADER } from './headers';

/** The service's own endpoints (health, readiness, the document and its page): GET and HEAD. */

/**
 * An operation answering HEAD: its GET's statuses and headers, without any content (a HEAD
 * answer has no body; RFC 9110, section 9.3.2).
 */
export function headOf<T extends { responses: Record<string, unknown> }>(operation: T): T {
  const responses = Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => {
      const { content: _content, ...withoutContent } = response as Record<string, unknown>;
      return [status, withoutContent];
    }),
  );
  return { ...operation, responses };
}

export const jsonStatus = (statuses: string[]) => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { type: 'string', enum: statuses } },
    },
  },
});

/**
 * What express's res.send answers a conditional GET or HEAD whose condition is false instead of a
 * 200: If-None-Match: * asks for the answer only when there is none (RFC 9110, section 13.1.2).
 */
const notModified = {
  description:
    'Not modified: the request had If-None-Match: *, and there is a representation. No body.',
  headers: { 'X-Request-Id': REQUEST_ID_HEADER },
};

/**
 * An endpoint of the service's own (in the operations tag): a GET, and the HEAD express answers
 * with the same route (the same status and headers, no body).
 */
export function operationsEndpoint(operation: {
  operationId: string;
  summary: string;
  description: string;
  parameters?: Record<string, unknown>[];
  responses: Record<string, unknown>;
}) {
  const withConditional = {
    ...operation,
    responses: { ...operation.responses, '304': notModified },
  };
  return {
    get: { tags: ['operations'], ...withConditional },
    head: headOf({
      tags: ['operations'],
      ...withConditional,
      operationId: `${operation.operationId}Head`,
      summary: `${operation.summary} (headers only)`,
    }),
  };
}
