// Offline token counting for catalog accounting and the token benchmark. It uses OpenAI's
// o200k_base encoding (exact for current OpenAI models); no exact offline tokenizer exists
// for Claude models, so figures for Claude are approximations and are labeled as such.

import { countTokens as countO200k } from "gpt-tokenizer";

/** The tokenizer every count in Switchyard names. */
export const TOKENIZER = "o200k_base (gpt-tokenizer 4.0.0)";

/** Tokens of `text` under o200k_base. */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text);
}
