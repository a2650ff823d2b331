/** A payment method. */
type OneOfDiscriminatedUnion =
  | /** Card */ {
      type: "card";
      /** @pattern ^[0-9]{4}$ */
      last4: string;
    }
  | /** Bank transfer */ {
      type: "bank";
      iban: string;
    };
