type EmptySchema = unknown;
