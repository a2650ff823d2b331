interface TypeArrayWithNull {
  nickname: string | null;
  score?: number | null;
  tags?: string[] | null;
}
