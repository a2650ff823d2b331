interface ClosedObject {
  x: number;
  y: number;
}
