import { REQUEST_ID_HEADER } from './headers';

/** The service's own endpoints (health, readiness, the document and its page). */

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
 * An endpoint of the service's own (in the operations tag): a GET (which answers HEAD too, as the
 * document's description says, without an operation of its own).
 */
export function operationsEndpoint(operation: {
  operationId: string;
  summary: string;
  description: string;
  parameters?: Record<string, unknown>[];
  responses: Record<string, unknown>;
}) {
  return {
    get: {
      tags: ['operations'],
      ...operation,
      responses: { ...operation.responses, '304': notModified },
    },
  };
}
