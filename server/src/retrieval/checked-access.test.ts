import { describe, expect, it } from "vitest";
import { float64At, int32At, itemAt, numberAt, uint16At } from "./checked-access.ts";

describe("checked access", () => {
  it("reads the element at an index in range", () => {
    expect(int32At(Int32Array.of(4, -7), 1)).toBe(-7);
    expect(uint16At(Uint16Array.of(9), 0)).toBe(9);
    expect(float64At(Float64Array.of(0.5, 1.5), 1)).toBe(1.5);
    expect(numberAt([3, 0], 1)).toBe(0);
    expect(itemAt(["a", "b"], 0)).toBe("a");
  });

  it("throws a RangeError naming the index and the length out of range", () => {
    expect(() => int32At(new Int32Array(2), 2)).toThrow(new RangeError("index 2 is out of range (length 2)"));
    expect(() => float64At(new Float64Array(1), -1)).toThrow(RangeError);
    expect(() => numberAt([], 0)).toThrow("index 0 is out of range (length 0)");
    expect(() => itemAt([new Int32Array(1)], 1)).toThrow(RangeError);
  });
});
