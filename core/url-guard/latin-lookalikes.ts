/**
 * Letters that read as ASCII letters, by script: the data of the whole-script look-alike rule.
 * The Cyrillic set is the one Chromium's IDN spoof checker uses for the same rule; Greek and the
 * Latin letters without their dot (`ı`, `ȷ`) or in small-capital or alternative forms follow the
 * same idea. Each letter maps to the ASCII letter it is taken for, so a refusal can say what the
 * label reads as.
 */
export interface LookalikeScript {
  script: 'Cyrillic' | 'Greek' | 'Latin';
  /** Letter -> the ASCII letter it is read as. */
  letters: ReadonlyMap<string, string>;
  /**
   * Top-level domains (punycode) of countries writing in this script: names under them are
   * expected in it, so Chromium shows them as written.
   */
  ownTlds: ReadonlySet<string>;
}

const pairs = (text: string): ReadonlyMap<string, string> =>
  new Map(text.split(' ').map((pair) => [pair[0] as string, pair[1] as string]));

export const LOOKALIKE_SCRIPTS: readonly LookalikeScript[] = [
  {
    script: 'Cyrillic',
    letters: pairs('аa сc ԁd еe һh іi јj ӏl оo рp ԛq ѕs ԝw хx уy ъb ьb ҽe пn гr ѵv ѡw'),
    ownTlds: new Set([
      'bg',
      'by',
      'kz',
      'kg',
      'mk',
      'mn',
      'rs',
      'ru',
      'su',
      'tj',
      'ua',
      'uz',
      'xn--p1ai', // рф
      'xn--90ais', // бел
      'xn--j1amh', // укр
      'xn--80ao21a', // қаз
      'xn--90a3ac', // срб
      'xn--d1alf', // мкд
      'xn--l1acc', // мон
      'xn--90ae', // бг
    ]),
  },
  {
    script: 'Greek',
    letters: pairs('αa εe ιi κk νv οo ρp τt υu χx ωw ϲc'),
    ownTlds: new Set(['gr', 'cy', 'xn--qxam' /* ελ */, 'xn--qxa6a' /* ευ */]),
  },
  {
    script: 'Latin',
    letters: pairs('ıi ȷj ɑa ɡg ɩi ɪi ʟl ɴn ʀr ʏy ᴀa ᴄc ᴅd ᴇe ᴋk ᴍm ᴏo ᴘp ᴛt ᴜu ᴠv ᴡw ᴢz'),
    // Turkish and Azerbaijani write the dotless i as a letter of its own.
    ownTlds: new Set(['tr', 'az']),
  },
];
