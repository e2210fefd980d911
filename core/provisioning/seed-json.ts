import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ProvisioningError } from './provisioning-error';

/**
 * A seed file's JSON. When it is not valid JSON the error says where (line and column) and what
 * was expected, never the text there: V8's own message quotes the start of the offending token,
 * which in a seed file may be a secret. jsonc-parser, in strict mode, only locates the fault.
 */
export function parseSeedText(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const errors: ParseError[] = [];
    parse(text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (!first) throw new ProvisioningError(`${source} is not valid JSON`);
    const { line, column } = lineAndColumn(text, first.offset);
    throw new ProvisioningError(
      `${source} is not valid JSON: ${describe(first)} at line ${line}, column ${column}`,
    );
  }
}

/** `CommaExpected` -> `comma expected`. */
function describe(error: ParseError): string {
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** 1-based line and column (in UTF-16 code units, as editors count them) of `offset`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
