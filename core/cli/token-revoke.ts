import { usageError, type Options } from './admin-command-line';

/*
 * `token revoke`'s rules on the command line. Revoking removes a token's hash from the store (it
 * answers TOKEN_UNKNOWN afterwards); it works on the store only, never on a seed file.
 */

/**
 * Why `token revoke` refuses a seed file. The file is applied as an upsert at every start: a
 * token taken out of it stays in the store, and answers as before.
 */
export const REVOKE_ON_SEED_FILE_REFUSED =
  "token revoke works on the store, not on a seed file: a seed file is applied as an upsert at every start, so removing a token from it does not revoke it. Run the command without --seed-file, with DATA_DIR (or MONGODB_URI) naming the server's store; then take the token's hash out of the seed file too, or a start that applies it on a store saves the token again. Nothing was changed";

/** Said after a revocation while SHORTLINK_SEED_FILE names the server's seed file. */
export const seedFileStillLists = (seedFile: string) =>
  `the seed file ${seedFile} is left as it is: if it lists the revoked token's hash, take it out, or the next start that applies it saves the token again`;

/**
 * `token revoke` reads a token from standard input unless it revokes by user: --user and --all
 * go together, so a mistyped command line never revokes every token of a user.
 */
export function revokesByUser(options: Options): boolean {
  if (options.all === true && options.user === undefined) {
    throw usageError('--all needs --user USER_ID (whose tokens to revoke)');
  }
  if (options.user !== undefined && options.all !== true) {
    throw usageError(
      '--user needs --all to revoke every token of the user; to revoke one token give it on standard input, without --user',
    );
  }
  return options.all === true;
}
