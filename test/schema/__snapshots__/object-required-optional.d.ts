interface ObjectRequiredOptional {
  id: string;
  name?: string;
  age?: number;
  undescribed: unknown;
}
