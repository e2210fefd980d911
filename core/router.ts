import { createLink } from './links/create-link';
import { disableLink, enableLink } from './links/disable-link';
import { getLink } from './links/get-link';
import { linkHistory } from './links/link-history';
import { linkVisits } from './links/link-visits';
import { listLinks } from './links/list-links';
import { resolveLink } from './links/resolve-link';
import { updateLink } from './links/update-link';

/** Every procedure of the core; transports and embedders reach them through createCaller. */
export const appRouter = {
  links: {
    create: createLink,
    resolve: resolveLink,
    get: getLink,
    list: listLinks,
    disable: disableLink,
    enable: enableLink,
    update: updateLink,
    history: linkHistory,
    visits: linkVisits,
  },
};

export type AppRouter = typeof appRouter;
