interface DeprecatedProperties {
  query?: string;
  /**
   * Use `query` instead.
   * @deprecated
   */
  q?: string;
  /** @deprecated */
  legacyMode?: boolean;
}
