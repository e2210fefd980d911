/**
 * Which writing systems the characters of one host label belong to, from the Unicode data built
 * into the JavaScript engine (`\p{Script_Extensions=...}`): no character tables of our own.
 */

/**
 * The scripts UAX #31 (Table 5) recommends for identifiers, which are the ones ICU's spoof
 * checker (and so Chromium) lets a domain label use; a letter of any other script is shown as
 * punycode. Only script names are listed here; which character is in which comes from the engine.
 */
const RECOMMENDED_SCRIPTS = [
  'Latin',
  'Arabic',
  'Armenian',
  'Bengali',
  'Bopomofo',
  'Cyrillic',
  'Devanagari',
  'Ethiopic',
  'Georgian',
  'Greek',
  'Gujarati',
  'Gurmukhi',
  'Han',
  'Hangul',
  'Hebrew',
  'Hiragana',
  'Kannada',
  'Katakana',
  'Khmer',
  'Lao',
  'Malayalam',
  'Myanmar',
  'Oriya',
  'Sinhala',
  'Tamil',
  'Telugu',
  'Thaana',
  'Thai',
  'Tibetan',
] as const;

const SCRIPT_PATTERNS = RECOMMENDED_SCRIPTS.map(
  (script) => [script, new RegExp(`^\\p{Script_Extensions=${script}}$`, 'u')] as const,
);
// Digits, hyphens and combining marks that go with any script do not count as mixing.
const ANY_SCRIPT = /^[\p{Script_Extensions=Common}\p{Script_Extensions=Inherited}]$/u;
const ASCII_ONLY = /^\p{ASCII}*$/u;

/**
 * UTS #39 treats Han together with the scripts written alongside it as one writing system:
 * Japanese (Han, Hiragana, Katakana), Chinese with Bopomofo, Korean (Han, Hangul).
 */
const WRITING_SYSTEMS: Record<string, readonly string[]> = {
  Han: ['Jpan', 'Hanb', 'Kore'],
  Hiragana: ['Jpan'],
  Katakana: ['Jpan'],
  Bopomofo: ['Hanb'],
  Hangul: ['Kore'],
};
const CJK_SYSTEMS = ['Jpan', 'Hanb', 'Kore'];

type LabelVerdict =
  | { safe: true }
  | { safe: false; kind: 'mixed'; scripts: string[] }
  | { safe: false; kind: 'unrecommended'; character: string };

/**
 * Chromium's rule for showing a label in Unicode (ICU "highly restrictive"): all its letters
 * from one script, ignoring characters common to all scripts, or Latin together with one of the
 * CJK writing systems (Latin + Han + Hiragana + Katakana, Latin + Han + Bopomofo,
 * Latin + Han + Hangul). Anything else is what browsers show as punycode.
 */
export function judgeLabel(label: string): LabelVerdict {
  if (ASCII_ONLY.test(label)) return { safe: true };
  const perCharacter: Array<{ scripts: string[]; systems: Set<string> }> = [];
  for (const character of label) {
    if (ANY_SCRIPT.test(character)) continue;
    const scripts = SCRIPT_PATTERNS.filter(([, pattern]) => pattern.test(character)).map(
      ([script]) => script,
    );
    if (scripts.length === 0) return { safe: false, kind: 'unrecommended', character };
    const systems = new Set(
      scripts.flatMap((script) => [script, ...(WRITING_SYSTEMS[script] ?? [])]),
    );
    perCharacter.push({ scripts, systems });
  }
  if (intersect(perCharacter.map((c) => c.systems)).size > 0) return { safe: true };
  const withoutLatin = perCharacter.filter((c) => !c.systems.has('Latin'));
  const rest = intersect(withoutLatin.map((c) => c.systems));
  if (CJK_SYSTEMS.some((system) => rest.has(system))) return { safe: true };
  return { safe: false, kind: 'mixed', scripts: distinctFirstScripts(perCharacter) };
}

function intersect(sets: ReadonlyArray<ReadonlySet<string>>): Set<string> {
  const [first, ...others] = sets;
  if (!first) return new Set(['*']);
  return new Set([...first].filter((item) => others.every((set) => set.has(item))));
}

function distinctFirstScripts(characters: ReadonlyArray<{ scripts: string[] }>): string[] {
  const seen: string[] = [];
  for (const { scripts } of characters) {
    if (scripts.some((script) => seen.includes(script))) continue;
    seen.push(scripts[0] as string);
  }
  return seen;
}
