/**
 * Shipment
 * A shipment of one or more parcels.
 */
interface DescriptionsAtEveryLevel {
  /** Parcels, in loading order. */
  parcels: Array<
    /** One parcel. */
    {
      /** Weight in kilograms. */
      weightKg: number;
      /** Outer dimensions in centimetres. */
      dimensions?: {
        /** Longest side. */
        length: number;
        width: number;
        height: number;
      };
    }
  >;
  /** Who carries it. */
  carrier?:
    | /** A carrier code such as `ups`. */ string
    | /** A custom carrier. */ {
        name?: string;
      };
}
