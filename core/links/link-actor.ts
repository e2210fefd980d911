import type { Clock } from '../ports/clock';
import { ADMIN_ACTOR, RESCAN_ACTOR, type LinkActing, type LinkActor } from '../ports/link-store';

/** A member's change through the core: `user:<id>`, refused on a link the operator holds. */
export function memberActing(ctx: { userId: string; deps: { clock: Clock } }): LinkActing {
  return { at: ctx.deps.clock.now(), by: `user:${ctx.userId}`, refuseHeld: true };
}

/** The operator's change (the admin CLI) or a rescan's: never refused. */
export function operatorActing(
  clock: Clock,
  by: typeof ADMIN_ACTOR | typeof RESCAN_ACTOR,
): LinkActing {
  return { at: clock.now(), by, refuseHeld: false };
}

/**
 * Who a stored `by` names, as every reader shows it: a LinkActor as it is; a bare user id, as
 * links disabled before actors were named carry, as `user:<id>`.
 */
export function actorOf(by: string): LinkActor {
  if (by === ADMIN_ACTOR || by === RESCAN_ACTOR || by.startsWith('user:')) return by as LinkActor;
  return `user:${by}`;
}
