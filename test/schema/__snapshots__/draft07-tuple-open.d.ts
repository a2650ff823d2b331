type Draft07TupleOpen = [string, number, ...unknown[]];
