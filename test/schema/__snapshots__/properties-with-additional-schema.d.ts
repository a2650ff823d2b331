interface PropertiesWithAdditionalSchema {
  id: string;
  count?: number;
  [key: string]: boolean | string | number | undefined;
}
