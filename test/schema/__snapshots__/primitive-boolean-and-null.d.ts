type PrimitiveBooleanAndNull = boolean | null;
