type BooleanSchemaTrue = unknown;
