interface NotKeyword {
  anythingButNull?: unknown /* not cannot be expressed */;
  notEmpty?: string;
}
