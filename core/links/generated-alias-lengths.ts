import type { Logger } from '../ports/logger';
import { MAX_ALIAS_LENGTH } from './link-field-limits';

/**
 * When a domain's generated aliases grow: after this many collisions (a generated alias already
 * taken) within ALIAS_COLLISION_WINDOW_MS in one process, its generated aliases are one character
 * longer. A collision costs a create one more insert; at a fill of f a generated alias collides
 * with probability f, so ten a minute is a domain well used at its length (see core/README.md).
 */
export const ALIAS_COLLISIONS_TO_GROW = 10;
export const ALIAS_COLLISION_WINDOW_MS = 60_000;

interface DomainCollisions {
  /** Characters added to the base length. */
  extra: number;
  windowStart: number;
  count: number;
}

/**
 * The length of the aliases generated under each link domain, measured by collisions: every
 * domain starts at the base length (GENERATED_ALIAS_LENGTH), and grows by one character once
 * ALIAS_COLLISIONS_TO_GROW of its generated aliases collided within ALIAS_COLLISION_WINDOW_MS.
 * Kept in the process (each measures its own collisions; a restarted process starts again at the
 * base length and grows again within a window of collisions); only domains that collided take
 * an entry.
 */
export class GeneratedAliasLengths {
  private readonly domains = new Map<string, DomainCollisions>();
  private readonly now: () => number;
  private readonly base: number;

  constructor(
    private readonly logger: Logger,
    /** `base`: the length every domain starts at (the generator's, GENERATED_ALIAS_LENGTH). */
    options: { base: number; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
    this.base = options.base;
  }

  lengthFor(domain: string): number {
    return this.base + (this.domains.get(domain)?.extra ?? 0);
  }

  /** A generated alias under `domain` was taken already. */
  collided(domain: string): void {
    const now = this.now();
    let state = this.domains.get(domain);
    if (!state || now - state.windowStart >= ALIAS_COLLISION_WINDOW_MS) {
      state = { extra: state?.extra ?? 0, windowStart: now, count: 0 };
      this.domains.set(domain, state);
    }
    state.count += 1;
    if (state.count < ALIAS_COLLISIONS_TO_GROW || this.lengthFor(domain) >= MAX_ALIAS_LENGTH) {
      return;
    }
    state.extra += 1;
    state.count = 0;
    state.windowStart = now;
    this.logger.info(
      { domain, length: this.lengthFor(domain), collisions: ALIAS_COLLISIONS_TO_GROW },
      'generated aliases collide often on this domain: they are one character longer from now on',
    );
  }
}
