interface PatternProperties {
  name?: string;
  /**
   * Keys matching /^x-/
   * Vendor extension.
   * Keys matching /^[0-9]+$/
   */
  [key: string]: string | number | undefined;
}
