// The built-ins the guest runtime uses, captured when the runtime is evaluated, which is before
// any program runs, and the only way the runtime reaches them afterwards. A program may replace
// any global or prototype member (JSON.parse, Function.prototype.call, Promise.prototype.then,
// an Array.prototype[0] setter, Object.prototype setters for the wire's keys): that may break
// its own code, never a crossing or the run's ending. Free of Node and DOM APIs.

const reflectApply = Reflect.apply;
const functionBind = Function.prototype.bind;
const functionCall = Function.prototype.call;

/**
 * `method` as a plain function taking its receiver first, bound now: calling the result never
 * looks up `call`, `apply` or `bind` again, so a program that replaces them cannot reach it.
 */
function uncurry<Receiver, Args extends unknown[], Result>(
  method: (this: Receiver, ...args: Args) => Result,
): (receiver: Receiver, ...args: Args) => Result {
  return reflectApply(functionBind, functionCall, [method]) as (receiver: Receiver, ...args: Args) => Result;
}

/** `Reflect.apply` as it was: calls `target` with `receiver` and the elements of `args`. */
export const applyFunction = reflectApply;
/** `JSON.stringify` and `JSON.parse` as they were. */
export const stringifyJson = JSON.stringify;
export const parseJson = JSON.parse;
export const objectKeys = Object.keys;
export const objectCreate = Object.create;
export const objectFreeze = Object.freeze;
export const objectHasOwn = Object.hasOwn;
export const objectPrototype = Object.prototype;
export const getPrototypeOf = Object.getPrototypeOf;
export const isArray = Array.isArray;
export const isFiniteNumber = Number.isFinite;
export const toNumber = Number;
export const toText = String;
export const ErrorConstructor = Error;
export const RangeErrorConstructor = RangeError;
export const TypeErrorConstructor = TypeError;
export const PromiseConstructor = Promise;
export const ProxyConstructor = Proxy;
export const MapConstructor = Map;
export const WeakSetConstructor = WeakSet;
export const DateConstructor = Date;
export const constructObject = Reflect.construct;
export const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const dateNow = Date.now;
/** V8's `Error.captureStackTrace`, or undefined on an engine without it. */
export const captureStackTrace = (Error as { captureStackTrace?: (target: object, skipFrom?: unknown) => void })
  .captureStackTrace;
export const mathMax = Math.max;
export const mathMin = Math.min;
export const isNaNNumber = Number.isNaN;

/** String methods as functions of the string. */
export const sliceText = uncurry(String.prototype.slice);
export const charCodeOf = uncurry(String.prototype.charCodeAt);
/** Map and WeakSet methods as functions of the collection. */
export const mapGet = uncurry(Map.prototype.get) as <Key, Value>(map: Map<Key, Value>, key: Key) => Value | undefined;
export const mapSet = uncurry(Map.prototype.set) as <Key, Value>(map: Map<Key, Value>, key: Key, value: Value) => void;
export const mapDelete = uncurry(Map.prototype.delete) as <Key, Value>(map: Map<Key, Value>, key: Key) => boolean;
export const mapClear = uncurry(Map.prototype.clear) as <Key, Value>(map: Map<Key, Value>) => void;
export const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, "size")!.get!) as (
  map: Map<unknown, unknown>,
) => number;
export const weakSetHas = uncurry(WeakSet.prototype.has) as (set: WeakSet<object>, value: object) => boolean;
export const weakSetAdd = uncurry(WeakSet.prototype.add) as (set: WeakSet<object>, value: object) => void;

const defineProperty = Object.defineProperty;
const setPrototypeOf = Object.setPrototypeOf;
const promiseThen = Promise.prototype.then;
const hasInstance = Function.prototype[Symbol.hasInstance];

/**
 * Defines `object[key]` as a plain data property (writable, enumerable, configurable: what an
 * assignment makes), without running a setter a program put on a prototype. The descriptor
 * has no prototype: a program's `Object.prototype.get` must not turn it into an accessor.
 */
export function defineValue(object: object, key: PropertyKey, value: unknown, enumerable = true): void {
  defineProperty(object, key, {
    __proto__: null,
    value,
    writable: true,
    enumerable,
    configurable: true,
  } as PropertyDescriptor);
}

/** Defines `object[key]` as a constant (not writable, not configurable). */
export function defineConstant(object: object, key: PropertyKey, value: unknown): void {
  defineProperty(object, key, {
    __proto__: null,
    value,
    writable: false,
    enumerable: false,
    configurable: false,
  } as PropertyDescriptor);
}

/** Defines `object[key]` as a configurable accessor with getter `get`, keeping its enumerability. */
export function defineGetter(object: object, key: PropertyKey, get: () => unknown): void {
  defineProperty(object, key, { __proto__: null, get, configurable: true } as PropertyDescriptor);
}

/**
 * An empty array without a prototype: writing an index never reaches a setter a program put on
 * `Array.prototype` or `Object.prototype`. Read and write it by index and `length` only.
 */
export function newList<T>(): T[] {
  return setPrototypeOf([], null) as T[];
}

/** Appends to a list made by `newList`. */
export function append<T>(list: T[], value: T): void {
  list[list.length] = value;
}

const speciesGetter = Object.getOwnPropertyDescriptor(Promise, Symbol.species)?.get;

/**
 * Makes `Promise[Symbol.species]` and `Promise.prototype.constructor` constant; called by the
 * guest runtime's `install`, before any program runs, never at import (the host imports guest
 * constants, and its own Promise must stay as it was). `then` (ours, and V8's Promise::Then,
 * which isolated-vm uses on the run's promise) builds its derived promise from
 * `promise.constructor[Symbol.species]`: with both constant, a program cannot make every `then`
 * call its code or throw. Subclasses of Promise still work.
 */
export function lockPromiseSpecies(): void {
  defineProperty(PromiseConstructor, Symbol.species, {
    __proto__: null,
    get: speciesGetter,
    configurable: false,
  } as PropertyDescriptor);
  defineProperty(PromiseConstructor.prototype, "constructor", {
    __proto__: null,
    value: PromiseConstructor,
    writable: false,
    configurable: false,
  } as PropertyDescriptor);
}

/**
 * Reacts to `promise` (a native promise) with the `then` captured before the program ran. The
 * handlers should return nothing: what they return resolves the derived promise.
 */
export function reactTo(
  promise: Promise<unknown>,
  onFulfilled: ((value: unknown) => void) | undefined,
  onRejected?: (error: unknown) => void,
): void {
  reflectApply(promiseThen, promise, [onFulfilled, onRejected]);
}

/** A promise that is already fulfilled. */
export function resolvedPromise(): Promise<void> {
  return new PromiseConstructor<void>((resolve) => resolve());
}

/** `value instanceof Error`, without `Error[Symbol.hasInstance]`, which a program may define. */
export function isError(value: unknown): value is Error {
  return reflectApply(hasInstance, ErrorConstructor, [value]) as boolean;
}
