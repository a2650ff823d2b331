type AllOfIntersection = {
  id: string;
} & {
  /** @format date-time */
  createdAt?: string;
} & (
  | {
      a?: string;
    }
  | {
      b?: number;
    }
);
