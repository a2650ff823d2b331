interface ConstValues {
  kind: "refund";
  version: 2;
  negative?: (-1)[];
}
