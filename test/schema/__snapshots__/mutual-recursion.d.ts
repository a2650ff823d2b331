type MutualRecursion = MutualRecursionFolder;

interface MutualRecursionFolder {
  name: string;
  entries: MutualRecursionEntry[];
}

type MutualRecursionEntry =
  | MutualRecursionFolder
  | {
      file: string;
    };
