/** Arbitrary metadata. */
interface OpenObjectWithoutProperties {
  [key: string]: unknown;
}
