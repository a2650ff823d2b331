interface HostileKeywordValues {
  kept: unknown /* not a schema */;
  [key: string]: unknown /* not a schema */;
}
