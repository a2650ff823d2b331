interface Draft07Definitions {
  billing: Draft07DefinitionsAddress;
  /** Defaults to the billing address. */
  shipping?: Draft07DefinitionsAddress;
}

interface Draft07DefinitionsAddress {
  street: string;
  postal_code?: string;
}
