interface OpenapiNullable {
  middleName?: string | null;
  alreadyNull?: string | null;
  address?:
    | {
        city?: string;
      }
    | null;
}
