interface StringFormats {
  /** @format email */
  email: string;
  /**
   * When the record was created.
   * @format date-time
   */
  createdAt?: string;
  /** @format uri */
  homepage?: string;
  /** @format uuid */
  id: string;
}
