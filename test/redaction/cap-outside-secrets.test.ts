// capOutsideSecrets: a text cut to its limit never ends inside a secret, and keeps the text itself.

import { describe, expect, it } from "vitest";
import { capErrorText } from "../../runtime/wire.js";
import { capOutsideSecrets } from "../../src/redaction/cap-outside-secrets.js";
import { Redactor } from "../../src/redaction/redactor.js";
import { createCanaries } from "./canaries.js";

const token = createCanaries()[0]!.secret;
const redactor = new Redactor({ secrets: ["known-Secret/2026"] });

describe("capOutsideSecrets", () => {
  it("moves the cut back to the start of a secret it would split, at every offset across the secret", () => {
    for (let before = 1_940; before <= 1_975; before++) {
      const text = `${"a".repeat(before)} ${token} ${"b".repeat(100)}`;
      const capped = capOutsideSecrets(text, 2_000, redactor);
      expect(capped.length).toBeLessThanOrEqual(2_000);
      expect(capped).toContain(`… [cut: ${text.length} characters in all]`);
      const kept = capped.slice(0, capped.indexOf("… [cut:"));
      // Either the whole token, or none of it: never its head.
      expect(kept.endsWith(token) || !kept.includes(token.slice(0, 4)), `${before}`).toBe(true);
      expect(text.startsWith(kept)).toBe(true);
    }
  });

  it("cuts as capErrorText does where no secret is in the way, and without a redactor", () => {
    const text = `${"a".repeat(3_000)} ${token}`;
    expect(capOutsideSecrets(text, 2_000, redactor)).toBe(capErrorText(text, 2_000));
    const split = `${"a".repeat(1_970)}${token}`;
    expect(capOutsideSecrets(split, 2_000, undefined)).toBe(capErrorText(split, 2_000));
    expect(capOutsideSecrets("short", 2_000, redactor)).toBe("short");
  });

  it("keeps known secrets whole or out, too", () => {
    const text = `${"c".repeat(1_960)}known-Secret/2026${"d".repeat(100)}`;
    expect(capOutsideSecrets(text, 2_000, redactor)).not.toContain("known-");
  });
});
