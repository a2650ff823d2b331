interface PropertiesWithAdditionalTrue {
  id?: string;
  [key: string]: unknown;
}
