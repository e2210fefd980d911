import { domainToUnicode } from 'node:url';
import { bareHostname, isIpHostname } from './host';
import { LOOKALIKE_SCRIPTS, type LookalikeScript } from './latin-lookalikes';
import { block, pass, type UrlRule } from './rule';

// Digits and hyphens belong to every script; they neither make nor break a look-alike.
const NEUTRAL = /^[0-9-]$/;
const LATIN_OR_NEUTRAL = /^[\p{Script=Latin}0-9-]*$/u;
const ASCII_LETTER = /^[a-z]$/;
// A combining dot above on i, j, l or the dotless ı, ȷ draws the plain letter (`ı̇` is `i`), so
// Chromium's spoof checker refuses it there; it adds a look-alike rather than ending one.
const DOT_ABOVE = '\u0307';
const TAKES_DOT_ABOVE = /^[ijlıȷ]$/;

/**
 * Refuses a name with a whole-script look-alike label, as Chromium's IDN policy does: a label
 * written entirely in letters of one script that all read as Latin ones (`аррӏе`, all Cyrillic,
 * in `xn--80ak6aa92e.com`), when the rest of the name is Latin and its top-level domain is not
 * one of that script's countries. Each letter on its own is legitimate, so the mixed-script rule
 * cannot see it. Latin letters that read as plain ASCII ones (`ı` in `gıthub.com`) count the same.
 */
export const wholeScriptRule: UrlRule = {
  name: 'whole-script',
  check(url) {
    const hostname = bareHostname(url);
    if (isIpHostname(hostname) || !hostname.includes('xn--')) return Promise.resolve(pass);
    const ascii = hostname.split('.');
    const labels = (domainToUnicode(hostname) || hostname).split('.');
    const tld = ascii.at(-1) ?? '';
    for (const [index, label] of labels.entries()) {
      const others = labels.filter((_, other) => other !== index);
      if (!others.every((other) => LATIN_OR_NEUTRAL.test(other))) continue;
      for (const script of LOOKALIKE_SCRIPTS) {
        if (script.ownTlds.has(tld)) continue;
        const readsAs = lookalikeReading(label, script);
        if (readsAs === null) continue;
        return Promise.resolve(
          block(
            `whole-script look-alike: the label "${label}" is written in ${script.script} letters that read as the Latin "${readsAs}"`,
          ),
        );
      }
    }
    return Promise.resolve(pass);
  },
};

/**
 * What `label` reads as when every letter of it is a look-alike of `script` (ASCII letters are
 * allowed too for Latin, whose look-alikes hide among them); null when it is not one.
 */
function lookalikeReading(label: string, script: LookalikeScript): string | null {
  let reading = '';
  let lookalikes = 0;
  let previous = '';
  for (const character of label) {
    const after = previous;
    previous = character;
    const twin = script.letters.get(character);
    if (script.script === 'Latin' && character === DOT_ABOVE && TAKES_DOT_ABOVE.test(after)) {
      lookalikes += 1;
    } else if (twin !== undefined) {
      reading += twin;
      lookalikes += 1;
    } else if (
      NEUTRAL.test(character) ||
      (script.script === 'Latin' && ASCII_LETTER.test(character))
    ) {
      reading += character;
    } else {
      return null;
    }
  }
  return lookalikes > 0 ? reading : null;
}
