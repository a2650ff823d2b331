type Draft07TupleItems = [
  string,
  {
    ok?: boolean;
  },
];
