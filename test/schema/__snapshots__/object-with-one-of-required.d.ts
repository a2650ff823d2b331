/** Look up a user by exactly one of its keys. */
type ObjectWithOneOfRequired = {
  /** @format email */
  email?: string;
  userId?: string;
} & (
  | {
      email: unknown;
    }
  | {
      userId: unknown;
    }
);
