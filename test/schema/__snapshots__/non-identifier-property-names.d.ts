interface NonIdentifierPropertyNames {
  "content-type": string;
  "2fa"?: boolean;
  "with space"?: string;
  $ref_like?: string;
  /** Reserved words are valid property names. */
  default?: string;
  /** The empty key. */
  ""?: string;
  "日本語"?: number;
  "quote\"and\\backslash"?: string;
}
