// The code of the SwitchyardError a configuration step throws: the one way tests of the
// thrown channel read it. A throw of anything else fails the test; no throw gives undefined.

import { expect } from "vitest";
import { SwitchyardError } from "../../src/errors.js";

export function configErrorCode(make: () => unknown): string | undefined {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchyardError);
    return (error as SwitchyardError).code;
  }
  return undefined;
}

/** The SwitchyardError `make` throws, to read its code and message; a throw of anything else, or none, fails the test. */
export function configErrorOf(make: () => unknown): SwitchyardError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(SwitchyardError);
    return error as SwitchyardError;
  }
  throw new Error("expected a SwitchyardError, but nothing was thrown");
}
