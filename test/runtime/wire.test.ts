import { describe, expect, it } from "vitest";
import { decodeGuestConfig, encodeGuestConfig } from "../../runtime/wire.js";

const LIMITS = { maxArgumentBytes: 1024, maxOutputBytes: 2048, maxLogBytes: 512, maxLogLines: 10 };

describe("the guest config on the wire", () => {
  it("round-trips the limits, and has no input when the run has none", () => {
    const decoded = decodeGuestConfig(encodeGuestConfig(LIMITS));
    expect(decoded).toEqual(LIMITS);
    expect(Object.hasOwn(decoded, "input")).toBe(false);
  });

  it("splices the input's JSON text in and decodes it with the limits", () => {
    for (const input of [null, 0, "", 'text with " and \\u2028', [1, { a: [] }], { nested: { list: [true, null] } }]) {
      const decoded = decodeGuestConfig(encodeGuestConfig(LIMITS, JSON.stringify(input)));
      expect(decoded).toEqual({ ...LIMITS, input });
      expect(Object.hasOwn(decoded, "input")).toBe(true);
    }
  });

  it("sends only the limits, whatever else the host object carries", () => {
    const withExtra = { ...LIMITS, secret: "host-only" } as typeof LIMITS;
    expect(decodeGuestConfig(encodeGuestConfig(withExtra))).toEqual(LIMITS);
  });
});
