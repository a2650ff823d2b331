type BooleanSchemaFalse = never;
