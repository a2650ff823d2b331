interface UnresolvableRefs {
  external?: unknown /* external $ref https://example.com/schemas/address.json is not resolved */;
  missing?: unknown /* $ref #/$defs/doesNotExist does not resolve */;
  prototypeKey?: unknown /* $ref #/$defs/constructor does not resolve */;
  badEscape?: unknown /* $ref #/%E0%A4%A does not resolve */;
  nonPointer?: unknown /* $ref #anchor does not resolve */;
}
