/**
 * A [longitude, latitude] pair.
 * @minItems 2
 */
type PrefixItemsClosedTuple = [
  /**
   * Longitude in degrees.
   * @minimum -180
   * @maximum 180
   */
  number,
  /**
   * Latitude in degrees.
   * @minimum -90
   * @maximum 90
   */
  number,
];
