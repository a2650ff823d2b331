// The value a run hands its program as the constant `input`, turned into the JSON text the
// guest parses. Bounded while it is built: serialization stops as soon as the text could pass
// `maxInputBytes`, and nesting is capped, so no value can make the host build a huge string or
// recurse without end. Only JSON data crosses: `__proto__` keys are dropped (as in tool
// arguments), functions, symbols and BigInts are refused rather than silently left out.

import type { RunError } from "../contract.js";
import { messageOf } from "../errors.js";
import { exceedsJsonDepth } from "../json-limits.js";

/** The limits an input is held to; both are RunLimits fields. */
export interface ProgramInputLimits {
  /** Bytes of the input's JSON text (UTF-8). Over it: `INPUT_TOO_LARGE`. */
  readonly maxInputBytes: number;
  /** Nesting depth of arrays and objects. Deeper: `INPUT_TOO_LARGE`. */
  readonly maxInputDepth: number;
}

/** The input as JSON text, or why it cannot be one. */
export type EncodedProgramInput =
  | { readonly ok: true; readonly json: string }
  | { readonly ok: false; readonly error: RunError };

/** Thrown from inside the replacer to stop serialization; never leaves this module. */
class InputRefused extends Error {
  readonly runError: RunError;

  constructor(runError: RunError) {
    super(runError.message);
    this.runError = runError;
  }
}

/**
 * Serializes `value` as the run's input: the JSON text `JSON.stringify` would give (so a Date
 * becomes its ISO string and `undefined` members are left out), without `__proto__` keys.
 * Fails with `INPUT_TOO_LARGE` over `maxInputBytes` or `maxInputDepth`, and with
 * `INPUT_INVALID` for a function, symbol or BigInt, a cycle, or a getter that throws.
 * Never throws.
 */
export function encodeProgramInput(value: unknown, limits: ProgramInputLimits): EncodedProgramInput {
  const { maxInputBytes, maxInputDepth } = limits;
  const tooLarge = (detail: string): RunError => ({
    code: "INPUT_TOO_LARGE",
    message: `The run's input ${detail}; nothing ran. Pass less data per run (split the batch) or raise limits.maxInputBytes / maxInputDepth.`,
  });
  const invalid = (detail: string): RunError => ({
    code: "INPUT_INVALID",
    message: `The run's input is not JSON data: ${detail}; nothing ran.`,
  });
  // Counted while the text is built, as the guest counts a program's output: an upper bound
  // on the text so far, so a huge value is refused after about maxInputBytes of work.
  let budget = 0;
  const replacer = (key: string, current: unknown): unknown => {
    if (key === "__proto__") return undefined;
    budget += key.length + 4;
    switch (typeof current) {
      case "function":
      case "symbol":
        throw new InputRefused(invalid(`it contains a ${typeof current} at "${key}"`));
      case "bigint":
        throw new InputRefused(invalid(`it contains a BigInt at "${key}"; convert it to a string or number`));
      case "string":
        budget += current.length;
        break;
      case "number":
        // JSON.stringify writes NaN and ±Infinity (a file's 1e309 parses as Infinity) as null.
        if (!Number.isFinite(current))
          throw new InputRefused(
            invalid(`it contains ${current} at "${key}", which JSON cannot carry (it would become null)`),
          );
        budget += 8;
        break;
      default:
        budget += 8;
    }
    if (budget > maxInputBytes) throw new InputRefused(tooLarge(`is larger than the ${maxInputBytes}-byte limit`));
    return current;
  };
  let json: string | undefined;
  try {
    json = JSON.stringify(value, replacer);
  } catch (error) {
    if (error instanceof InputRefused) return { ok: false, error: error.runError };
    // JSON.stringify recurses once per level: a value nested far past any limit overflows it.
    if (error instanceof RangeError)
      return { ok: false, error: tooLarge(`is nested deeper than ${maxInputDepth} levels`) };
    if (error instanceof TypeError && /circular/i.test(error.message))
      return { ok: false, error: invalid("it contains a cycle") };
    return { ok: false, error: invalid(`reading it failed (${messageOf(error).slice(0, 200)})`) };
  }
  if (json === undefined) return { ok: false, error: invalid("it has no JSON form") };
  if (exceedsJsonDepth(json, maxInputDepth))
    return { ok: false, error: tooLarge(`is nested deeper than ${maxInputDepth} levels`) };
  const bytes = Buffer.byteLength(json);
  if (bytes > maxInputBytes)
    return { ok: false, error: tooLarge(`is ${bytes} bytes, over the ${maxInputBytes}-byte limit`) };
  return { ok: true, json };
}
