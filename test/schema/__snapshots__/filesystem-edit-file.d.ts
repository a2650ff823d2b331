interface FilesystemEditFile {
  /** File to edit, inside an allowed directory. */
  path: string;
  /** Edits applied in order; each must match exactly once. */
  edits: {
    /** Text to search for - must match exactly */
    oldText: string;
    /** Text to replace with */
    newText: string;
  }[];
  /**
   * Preview changes using git-style diff format
   * @default false
   */
  dryRun?: boolean;
}
