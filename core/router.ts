import { createLink } from './links/create-link';
import { resolveLink } from './links/resolve-link';

/** Every procedure of the core; transports and embedders reach them through createCaller. */
export const appRouter = {
  links: {
    create: createLink,
    resolve: resolveLink,
  },
};

export type AppRouter = typeof appRouter;
