/** A JSON-like value. */
type RootSelfReference =
  | string | number | boolean | null
  | RootSelfReference[]
  | {
      [key: string]: RootSelfReference;
    };
