/** Environment variables by name. */
interface TypedAdditionalProperties {
  /** The variable's value. */
  [key: string]: string;
}
