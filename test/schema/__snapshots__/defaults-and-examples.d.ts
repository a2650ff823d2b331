interface DefaultsAndExamples {
  /**
   * @minimum 1
   * @maximum 100
   * @default 20
   * @example 10
   * @example 50
   */
  limit?: number;
  /** @default "desc" */
  sort?: "asc" | "desc";
  /** @default {"status":"open"} */
  filter?: {
    [key: string]: string;
  };
}
