interface UnknownTypeKeyword {
  upload?: unknown /* unknown type "file" */;
  weird?: unknown;
}
