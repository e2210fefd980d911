import {
  ERROR_CATALOGUE,
  ErrorCode,
  type ErrorCodeNumber,
  type ErrorReason,
} from './error-catalogue';

/**
 * The one error type of the core. It carries the spec's numeric code and one human-readable
 * message per failure found at the failing stage; it never carries a transport status.
 */
export class ShortlinkError extends Error {
  readonly code: ErrorCodeNumber;
  readonly reason: ErrorReason;
  readonly messages: readonly string[];
  /** Seconds after which a retry can succeed (rate limits). */
  readonly retryAfterSeconds: number | undefined;
  /**
   * The answer depends on the moment, not on the request (a check that could not run): a retry
   * of the same request may get another one, so an idempotency key is released, not recorded.
   */
  readonly transient: boolean;

  /** `messages` defaults to the catalogue's message for `reason`. */
  constructor(
    reason: ErrorReason,
    messages: string | readonly string[] = ERROR_CATALOGUE[reason].message,
    options: { retryAfterSeconds?: number; transient?: boolean; cause?: unknown } = {},
  ) {
    const list = typeof messages === 'string' ? [messages] : messages;
    super(list.join('; '), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ShortlinkError';
    this.code = ErrorCode[reason];
    this.reason = reason;
    this.messages = list;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.transient = options.transient ?? false;
  }

  /** The service's fault rather than the caller's (INTERNAL, BACKEND_UNAVAILABLE): worth a log line. */
  get isServerFault(): boolean {
    return ERROR_CATALOGUE[this.reason].serverFault;
  }
}

/**
 * A ShortlinkError for a frequent answer that is no fault (a follow's NOT_FOUND or LINK_DISABLED,
 * which a scanner or a taken-down link makes at full request rate): made without a stack trace,
 * which would cost more than the rest of such an answer and tells nothing about a failure that is
 * expected.
 */
export function expectedFailure(
  reason: ErrorReason,
  message: string = ERROR_CATALOGUE[reason].message,
): ShortlinkError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ShortlinkError(reason, message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Thrown by store and limiter adapters when their backend cannot be reached. The core turns it
 * into BACKEND_UNAVAILABLE; any other unexpected error becomes INTERNAL.
 */
export class BackendUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackendUnavailableError';
  }
}

/**
 * A write an identity store refused by one of its rules (a unique key: an id, a link domain, a key
 * or token hash held already), having changed nothing. Not a failure of the storage: adapters
 * pass it through as it is, whatever words its message holds.
 */
export class StoreRuleError extends Error {}

/**
 * Thrown by an identity store when an organization is saved with a link domain another
 * organization already has: the store's unique key decides, so two concurrent provisioners
 * cannot both win.
 */
export class LinkDomainTakenError extends StoreRuleError {
  constructor(
    readonly domain: string,
    options?: { cause?: unknown },
  ) {
    super(`the link domain "${domain}" belongs to another organization`, options);
    this.name = 'LinkDomainTakenError';
  }
}

/**
 * An organization inserted as new (`insertOrganization`) whose id exists:
 * the store checks it in the same atomic write, so of two concurrent creates one wins and the
 * other changes nothing.
 */
export class OrganizationExistsError extends StoreRuleError {
  constructor(
    readonly id: string,
    options?: { cause?: unknown },
  ) {
    super(`organization "${id}" already exists`, options);
    this.name = 'OrganizationExistsError';
  }
}

/**
 * A group inserted as new (`insertGroup`) whose api id exists in its organization: checked in the
 * same atomic write, so of two concurrent creates one wins and the other changes nothing.
 */
export class GroupExistsError extends StoreRuleError {
  constructor(
    readonly organizationId: string,
    readonly apiId: string,
    options?: { cause?: unknown },
  ) {
    super(`group "${apiId}" already exists in organization "${organizationId}"`, options);
    this.name = 'GroupExistsError';
  }
}

/** A user inserted as new (`insertUser`) whose id exists: checked as for groups. */
export class UserExistsError extends StoreRuleError {
  constructor(
    readonly id: string,
    options?: { cause?: unknown },
  ) {
    super(`user "${id}" already exists`, options);
    this.name = 'UserExistsError';
  }
}

/**
 * An organization saved with a key hash another organization holds. Every store refuses it in its
 * atomic write (a unique key), so one organization's key never resolves to another. The message
 * holds no secret.
 */
export class OrganizationKeyTakenError extends StoreRuleError {
  constructor(
    readonly organizationId: string,
    options?: { cause?: unknown },
  ) {
    super(
      `organization "${organizationId}": its key hash belongs to another organization`,
      options,
    );
    this.name = 'OrganizationKeyTakenError';
  }
}

/**
 * A token hash saved for a user while another user holds it. The store checks it in the same
 * atomic write and changes nothing, so a token never changes hands. The message holds no secret.
 */
export class TokenTakenError extends StoreRuleError {
  constructor(
    readonly userId: string,
    options?: { cause?: unknown },
  ) {
    super(`a token of user "${userId}" is already held by another user`, options);
    this.name = 'TokenTakenError';
  }
}

/**
 * What a BACKEND_UNAVAILABLE answer asks clients to wait before retrying, whichever backend could
 * not be reached (the store, or a rate-limit backend): long enough that a retry does not land in
 * the same outage (a replica set's election, a Redis failover, a restarting server usually take a
 * few seconds), short enough that a client does not give up on a service that is back. An answer
 * that knows better (a reputation quota that refills at a known time) gives its own.
 */
export const BACKEND_RETRY_AFTER_SECONDS = 5;

/** Turns anything thrown inside a procedure into a ShortlinkError without leaking internals. */
export function toShortlinkError(error: unknown): ShortlinkError {
  if (error instanceof ShortlinkError) return error;
  if (error instanceof BackendUnavailableError) {
    return new ShortlinkError('BACKEND_UNAVAILABLE', undefined, {
      cause: error,
      retryAfterSeconds: BACKEND_RETRY_AFTER_SECONDS,
    });
  }
  return new ShortlinkError('INTERNAL', undefined, { cause: error });
}
