interface IfThenElse {
  conditional?: unknown /* if/then/else cannot be expressed */;
}
