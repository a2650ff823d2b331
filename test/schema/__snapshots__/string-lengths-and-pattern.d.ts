interface StringLengthsAndPattern {
  /**
   * ISO 4217 currency code.
   * @minLength 3
   * @maxLength 3
   * @pattern ^[A-Z]{3}$
   */
  code: string;
  /** @pattern ^[a-z0-9]+(?:-[a-z0-9]+)*$ */
  slug?: string;
}
