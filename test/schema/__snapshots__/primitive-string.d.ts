type PrimitiveString = string;
