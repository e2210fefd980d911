import { readFile, stat } from 'node:fs/promises';
import { systemErrorCode } from '../errors/system-error-code';
import type { Logger } from '../ports/logger';
import { parseBlocklist } from './blocklist-format';
import { DomainSet } from './domain-set';

interface BlocklistFileOptions {
  /** How often the file's metadata is checked for a change. */
  pollMs: number;
  logger: Logger;
}

/**
 * The blocklist file, kept current by polling its metadata (inode, size, times) and re-reading
 * it once a change has held still for one poll. Polling, not fs.watch: it sees edits in place,
 * atomic renames, bind mounts and ConfigMap updates alike, on every file system. A file that
 * cannot be read or parsed leaves the last good list in force and is logged once per change.
 */
export class BlocklistFile {
  private list: DomainSet;
  private signature: string;
  private pending: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private polls = 0;

  private constructor(
    readonly path: string,
    private readonly options: BlocklistFileOptions,
    initial: { list: DomainSet; signature: string },
  ) {
    this.list = initial.list;
    this.signature = initial.signature;
  }

  /** Reads the file once; a missing or invalid file at start-up is a configuration error. */
  static async open(path: string, options: BlocklistFileOptions): Promise<BlocklistFile> {
    const signature = await signatureOf(path);
    const parsed = parseBlocklist(await readFile(path, 'utf8'));
    if (!parsed.ok) throw new Error(`blocklist file ${path}: ${parsed.problem}`);
    const file = new BlocklistFile(path, options, {
      list: new DomainSet(parsed.domains),
      signature,
    });
    options.logger.info({ file: path, domains: file.list.size }, 'blocklist loaded');
    file.schedule();
    return file;
  }

  get domains(): DomainSet {
    return this.list;
  }

  /** How many times the file has been polled (lets tests wait for the watcher without sleeps). */
  get pollCount(): number {
    return this.polls;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => {
        this.polls += 1;
        this.schedule();
      });
    }, this.options.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    let signature: string;
    let failure: string | null = null;
    try {
      signature = await signatureOf(this.path);
    } catch (error) {
      signature = `error:${codeOf(error)}`;
      failure = `cannot be read (${codeOf(error)})`;
    }
    if (signature === this.signature) return;
    // A change is applied once two polls in a row see it: a file being written in place (first
    // truncated, then filled) is never taken for an empty list.
    if (signature !== this.pending) {
      this.pending = signature;
      return;
    }
    if (failure !== null) {
      this.refuse(signature, failure);
      return;
    }
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      this.refuse(signature, `cannot be read (${codeOf(error)})`);
      return;
    }
    const parsed = parseBlocklist(text);
    if (!parsed.ok) {
      this.refuse(signature, parsed.problem);
      return;
    }
    this.signature = signature;
    this.list = new DomainSet(parsed.domains);
    this.options.logger.info({ file: this.path, domains: this.list.size }, 'blocklist reloaded');
  }

  /** Remembers the bad state so the same problem is logged once, not on every poll. */
  private refuse(signature: string, problem: string): void {
    if (signature === this.signature) return;
    this.signature = signature;
    this.options.logger.warn(
      { file: this.path, problem, domains: this.list.size },
      'blocklist file not applied; keeping the last good list',
    );
  }
}

async function signatureOf(path: string): Promise<string> {
  const info = await stat(path);
  if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

function codeOf(error: unknown): string {
  return systemErrorCode(error) ?? 'unknown error';
}
