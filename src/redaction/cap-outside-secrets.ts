// Cuts a text to a length limit without cutting a secret in two: a secret's head left before the
// cut is recognised by no rule afterwards and would reach the model half-redacted. The text kept
// is the text itself (a program still reads its values whole); only the cut moves back.

import { capErrorText } from "../../runtime/wire.js";
import type { Redactor } from "./redactor.js";

/**
 * `text` cut as `capErrorText` cuts it (at most `maxChars`, with its marker), the cut moved back
 * to the start of any secret `redactor` finds across it. Without a redactor, `capErrorText`.
 */
export function capOutsideSecrets(text: string, maxChars: number, redactor: Redactor | undefined): string {
  const capped = capErrorText(text, maxChars);
  if (redactor === undefined || capped === text) return capped;
  // Where the kept text stops: the marker follows it.
  let cut = 0;
  while (cut < capped.length && capped.charCodeAt(cut) === text.charCodeAt(cut)) cut++;
  const secrets = redactor.findSecrets(text);
  let safe = cut;
  // Overlapping secrets may each move the cut back.
  for (let moved = true; moved; ) {
    moved = false;
    for (const { start, end } of secrets) {
      if (start < safe && end > safe) {
        safe = start;
        moved = true;
      }
    }
  }
  return safe === cut ? capped : capErrorText(text, maxChars - (cut - safe));
}
