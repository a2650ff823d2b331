interface RequiredWithoutProperty {
  token: string;
  [key: string]: string;
}
