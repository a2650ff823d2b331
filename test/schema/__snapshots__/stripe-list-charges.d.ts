/** List charges, newest first, with cursor pagination. */
interface StripeListCharges {
  /**
   * Only charges of this customer ID.
   * @pattern ^cus_
   */
  customer?: string;
  /** Filter on creation time: a Unix timestamp or a range. */
  created?:
    | number
    | {
        gt?: number;
        gte?: number;
        lt?: number;
        lte?: number;
      };
  /**
   * Page size.
   * @minimum 1
   * @maximum 100
   * @default 10
   */
  limit?: number;
  /** Cursor: the ID of the last charge of the previous page. */
  starting_after?: string;
  /** Cursor for the page before this ID. */
  ending_before?: string;
  expand?: Array<
    /** @maxLength 5000 */
    string
  >;
}
