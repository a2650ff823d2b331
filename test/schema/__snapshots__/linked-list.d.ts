type LinkedList = LinkedListListNode;

interface LinkedListListNode {
  value: number;
  /** Null at the end. */
  next: LinkedListListNode | null;
}
