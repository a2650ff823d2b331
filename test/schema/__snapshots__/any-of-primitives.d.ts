interface AnyOfPrimitives {
  /** A numeric or string id. */
  id?: string | number;
  when?: /** @format date */ string | null;
}
