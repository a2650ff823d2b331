interface NumericRanges {
  /**
   * @minimum 0
   * @maximum 100
   */
  percent?: number;
  /** @exclusiveMinimum 0 */
  positive?: number;
  /** @exclusiveMaximum 10 */
  belowTen?: number;
  /** @multipleOf 0.5 */
  step?: number;
}
