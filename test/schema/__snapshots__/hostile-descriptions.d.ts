/** Ends the comment early *\/ declare const pwned: number; /* and more */
interface HostileDescriptions {
  /**
   * Backticks `rm -rf /`, ${template}, *\/ again,
   * new line
   * windows line
   * line separator, emoji 🚀, RTL � text, NUL �.
   * @pattern ^/*\/$
   * @default "*\/ pwned /*"
   * @example "a *\/ b"
   * @example "`code`"
   */
  note?: string;
  /** /** nested opener *\/ */
  "*/"?: string;
  value?: "*/ not a comment \u2028";
}
