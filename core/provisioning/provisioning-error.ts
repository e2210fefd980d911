/** A refusal of a provisioning command (CLI, seed file, embedder): its message says why. */
export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
}

/** A refusal because a record the command names (an organization, a user, a token) is not there. */
export class NotFoundProvisioningError extends ProvisioningError {}
