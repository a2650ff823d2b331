interface RecursiveTree {
  root: RecursiveTreeNode;
}

/** A tree node. */
interface RecursiveTreeNode {
  label: string;
  children?: RecursiveTreeNode[];
}
