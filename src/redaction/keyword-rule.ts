// The contract between the keyword scanner and the credential detectors behind it: a rule names
// the literal keywords every secret it finds must contain, and is asked to look only where one
// of them occurs. Rules report character ranges and a kind, never copies of the values.

/** A secret found in a text: the characters `[start, end)` and what kind of secret it is. */
export interface Finding {
  readonly start: number;
  readonly end: number;
  /** Names the replacement: `github-token` becomes `[REDACTED:github-token]`. */
  readonly kind: string;
}

/**
 * A detector driven by keywords. Each keyword must be a necessary substring of every secret
 * the rule finds (case-sensitive): a text without any keyword cannot contain one, so the
 * scanner never calls the rule for it. That is what keeps the whole scan one pass.
 */
export interface KeywordRule {
  /** For tests and listings, e.g. `secretlint:github` or `jwt`. */
  readonly name: string;
  readonly keywords: readonly string[];
  /**
   * Looks for secrets around the keyword found at `at` and appends them to `found`. Returns
   * the first position whose keywords are not yet covered: the scanner skips this rule's later
   * keywords before it (return `at + 1` to see every keyword). Must not throw.
   */
  scan(text: string, at: number, found: Finding[]): number;
  /**
   * A cheap test on JSON text (JSON.stringify's output) with one of the keywords at `at`:
   * false only when `scan`, run on the decoded string at that keyword, certainly reports
   * nothing. Lets the scanner skip decoding the string; a rule without it is always asked.
   */
  mayReportInJson?(json: string, at: number): boolean;
}
