/**
 * Typed arrays over a SharedArrayBuffer: the arrays a search's second thread reads and writes
 * (`scan-helper.ts`) — the posting pages, the per-slot lengths and documents, and the scores. They
 * read and cost the same as any other typed array; only another thread can see them too.
 */

export function sharedInt32(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(length * 4));
}

export function sharedUint16(length: number): Uint16Array {
  return new Uint16Array(new SharedArrayBuffer(length * 2));
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * 8));
}

export function isShared(values: ArrayBufferView): boolean {
  return values.buffer instanceof SharedArrayBuffer;
}

/** `values` when it is shared already, else a shared copy. */
export function asSharedInt32(values: Int32Array): Int32Array {
  if (isShared(values)) return values;
  const copy = sharedInt32(values.length);
  copy.set(values);
  return copy;
}

export function asSharedUint16(values: Uint16Array): Uint16Array {
  if (isShared(values)) return values;
  const copy = sharedUint16(values.length);
  copy.set(values);
  return copy;
}
