import { ProvisioningError } from '../provisioning/provisioning-error';

/** Far longer than any token (46 characters): more is a file piped in by mistake, not a token. */
const MAX_TOKEN_INPUT_BYTES = 4096;

/**
 * The one token `token revoke` reads from standard input, never from the command line (where it
 * would land in the shell's history and in `ps`). Surrounding whitespace (the newline of `echo`
 * or of a file) is dropped; nothing else is changed. No message repeats what was read.
 */
export function tokenFromInput(text: string): string {
  const token = text.trim();
  if (token === '') {
    throw new ProvisioningError(
      'no token on standard input: give the token to revoke there (e.g. from a file: < token.txt); nothing was changed',
    );
  }
  if (/\s/.test(token)) {
    throw new ProvisioningError(
      'standard input holds more than one word: give exactly one token to revoke; nothing was changed',
    );
  }
  return token;
}

/** All of `input` as text, refused past MAX_TOKEN_INPUT_BYTES. */
export async function readTokenInput(input: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_TOKEN_INPUT_BYTES) {
      throw new ProvisioningError(
        `standard input holds more than ${MAX_TOKEN_INPUT_BYTES} bytes: give exactly one token to revoke; nothing was changed`,
      );
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
