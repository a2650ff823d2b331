// The type checker sessions share when they are given none: one per process, so its worker, the
// parsed lib and the cache of finished checks serve every session. Warming a checker up starts
// its worker in the background, once per checker; it never throws, and a failed warm-up is silent.

import { RUNTIME_DECLARATIONS } from "../schema/generate-declarations.js";
import { TypeChecker } from "./type-checker.js";

let typeChecker: TypeChecker | undefined;

/** One checker per process: its worker keeps the parsed lib warm for every session. */
export function sharedTypeChecker(): TypeChecker {
  return (typeChecker ??= new TypeChecker());
}

const warmedUp = new WeakSet<TypeChecker>();

/**
 * Starts a checker's worker and parses the ES2022 lib (about 0.5 s) once per checker, in the
 * background, so the first program of a session is not the one that pays for it.
 */
export function warmUp(checker: TypeChecker): void {
  if (warmedUp.has(checker)) return;
  warmedUp.add(checker);
  setImmediate(() => void checker.check("return 0;", RUNTIME_DECLARATIONS).catch(() => undefined));
}
