// Turns tool names, descriptions and queries into search terms: identifier-aware splitting
// (camelCase, PascalCase, snake_case, kebab-case, dotted names, letter/digit boundaries),
// lower-casing, a small stop-word list and a conservative suffix stripper. It never expands
// synonyms or guesses meaning: two words match only if they share a stem.

const NON_ASCII = /[^\u0000-\u007f]/;

/** Longest token kept; longer runs (hashes, base64) are cut so they cannot bloat the index. */
const MAX_TOKEN_LENGTH = 40;

// Function words that carry no tool-selecting signal. Kept small on purpose: verbs such as
// "get", "list", "find" and nouns such as "all", "new" stay searchable.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the of for to in on at by with and or from into onto as is are was were be been being " +
    "this that these those it its i me my we our us you your he she they them their there here " +
    "do does did can could should would will shall may might must please want wants need needs " +
    "some any which what who whom whose when where how than then so such via per about not " +
    // Auxiliaries and the remains of contractions ("what's" → what s, "don't" → don t).
    "have has had having s t d ll re ve m don doesn didn isn aren wasn won"
  ).split(" "),
);

/** True for a function word that carries no tool-selecting signal (`the`, `to`, `how`). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/**
 * Splits text into raw lower-case words at identifier boundaries, without stemming or
 * stop-word removal: `getHTTPResponse_v2` → `get http response v 2`.
 */
export function splitWords(text: string): string[] {
  // Compatibility forms as their plain letters (fullwidth ｒｅｆｕｎｄ, mathematical 𝐫𝐞𝐟𝐮𝐧𝐝, ligatures):
  // a query typed or pasted in them finds what the plain word finds. ASCII text needs no pass.
  const ascii = !NON_ASCII.test(text);
  const plain = ascii ? text : text.normalize("NFKC");
  const spaced = plain
    // "HTTPServer" → "HTTP Server": an upper-case run followed by a capitalized word.
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    // "createContact" → "create Contact".
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    // "v2", "2fa", "ipv6": digits are their own words.
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2");
  const words: string[] = [];
  // Lower case, and the two full case foldings lower-casing leaves out that tool names meet: ß
  // (STRASSE and straße are one word) and the final sigma.
  const lower = ascii ? spaced.toLowerCase() : spaced.toLowerCase().replace(/ß/g, "ss").replace(/ς/g, "σ");
  for (const match of lower.matchAll(/[\p{L}\p{N}]+/gu)) {
    words.push(match[0].slice(0, MAX_TOKEN_LENGTH));
  }
  return words;
}

const VOWEL = /[aeiouy]/;

function hasVowel(stem: string): boolean {
  return VOWEL.test(stem);
}

// "stopped" → "stop", but "billed" → "bill": Porter's rule keeps doubled l, s and z.
function undouble(stem: string): string {
  const last = stem.at(-1);
  if (stem.length >= 3 && last === stem.at(-2) && last !== undefined && !"lsz".includes(last) && !VOWEL.test(last)) {
    return stem.slice(0, -1);
  }
  return stem;
}

/**
 * Reduces a lower-case word to a stem with a few suffix rules: plurals (`-s`, `-es`, `-ies`),
 * `-ing`, `-ed` (`-ied`) and a final silent `-e`, so `create`, `creates`, `created` and
 * `creating` all become `creat`. Words of three letters or fewer and digit runs are kept.
 * Deliberately not handled: `-er` (`user`, `order`, `folder` would collapse into other
 * words), `-ly`, `-tion` and irregular forms.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let result = word;
  // Plurals first, so "meetings" reaches the "-ing" rule as "meeting".
  if (result.endsWith("ies") && result.length > 4) {
    result = `${result.slice(0, -3)}y`;
  } else if (result.endsWith("sses")) {
    result = result.slice(0, -2);
  } else if (/(?:[sxz]|ch|sh)es$/.test(result) && result.length > 4) {
    result = result.slice(0, -2);
  } else if (result.endsWith("s") && !/(?:ss|us|is)$/.test(result)) {
    result = result.slice(0, -1);
  }
  if (result.endsWith("ied") && result.length > 4) {
    result = `${result.slice(0, -3)}y`;
  } else if (result.endsWith("ing") && result.length >= 6 && hasVowel(result.slice(0, -3))) {
    result = undouble(result.slice(0, -3));
  } else if (result.endsWith("ed") && result.length >= 5 && !result.endsWith("eed") && hasVowel(result.slice(0, -2))) {
    result = undouble(result.slice(0, -2));
  }
  // "create" and "creat(ed)" meet here; short words ("use", "file") keep at least 3 letters.
  if (result.endsWith("e") && result.length >= 4) {
    result = result.slice(0, -1);
  }
  return result;
}

// Terms of words already seen: a catalog repeats its words thousands of times ("the", "id",
// "contact"), and splitting and stemming were most of the cost of indexing it. Words longer than
// 64 characters (hashes, base64) are not kept; a full table is emptied rather than grown.
const wordTerms = new Map<string, readonly string[]>();
const MAX_CACHED_WORDS = 50_000;
const MAX_CACHED_WORD_LENGTH = 64;
// Runs of letters and digits: splitWords only ever splits inside one, so a text's terms are its
// runs' terms in order.
const RUN = /[\p{L}\p{N}]+/gu;

function termsOfRun(run: string): readonly string[] {
  let terms = wordTerms.get(run);
  if (terms === undefined) {
    terms = splitWords(run)
      .filter((word) => !STOP_WORDS.has(word))
      .map(stem);
    if (run.length <= MAX_CACHED_WORD_LENGTH) {
      if (wordTerms.size >= MAX_CACHED_WORDS) wordTerms.clear();
      wordTerms.set(run, terms);
    }
  }
  return terms;
}

/**
 * Turns text into search terms: identifier-aware splitting, lower-casing, stop-word removal,
 * then stemming. Order and duplicates are kept (term frequency matters to BM25).
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(RUN)) for (const term of termsOfRun(match[0])) terms.push(term);
  return terms;
}
