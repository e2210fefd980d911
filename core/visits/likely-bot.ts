import { isbot } from 'isbot';

/**
 * The longest User-Agent classified: longer ones are cut, so a follower cannot make the pattern
 * run over kilobytes. Every real one is far shorter.
 */
const MAX_USER_AGENT_LENGTH = 512;

/**
 * Whether a redirect's follower is likely a bot, by its User-Agent (isbot's maintained
 * pattern). None at all is a bot too: every browser sends one; scripts and scanners often do not.
 */
export function isLikelyBot(userAgent: string | undefined): boolean {
  if (!userAgent) return true;
  return isbot(userAgent.slice(0, MAX_USER_AGENT_LENGTH));
}
