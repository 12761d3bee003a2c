/**
 * Checked element reads for the indexes' arrays. `noUncheckedIndexedAccess` types `a[i]` as possibly
 * undefined; these return the element or throw a RangeError, where a cast to `number` would let
 * `undefined` flow on as NaN. One function per array type keeps each read site monomorphic, and in
 * optimised code the undefined test folds into the bounds check V8 makes anyway, so hot loops stay fast.
 */

function outOfRange(index: number, length: number): never {
  throw new RangeError(`index ${index} is out of range (length ${length})`);
}

export function int32At(values: Int32Array, index: number): number {
  const value = values[index];
  return value === undefined ? outOfRange(index, values.length) : value;
}

export function uint16At(values: Uint16Array, index: number): number {
  const value = values[index];
  return value === undefined ? outOfRange(index, values.length) : value;
}

export function float64At(values: Float64Array, index: number): number {
  const value = values[index];
  return value === undefined ? outOfRange(index, values.length) : value;
}

export function numberAt(values: readonly number[], index: number): number {
  const value = values[index];
  return value === undefined ? outOfRange(index, values.length) : value;
}

/** An element of an array of objects (never holding `undefined` itself). */
export function itemAt<T>(items: readonly T[], index: number): T {
  const value = items[index];
  return value === undefined ? outOfRange(index, items.length) : value;
}
