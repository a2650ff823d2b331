/**
 * @minItems 1
 * @uniqueItems true
 */
type ArrayOfObjects = {
  id: string;
  qty?: number;
}[];
