interface ArrayOfUnions {
  values?: (string | number)[];
  choices?: ("a" | "b")[];
  anything?: unknown[];
  nothing?: [];
}
