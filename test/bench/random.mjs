// A seeded xorshift32 generator for the benchmarks: the same sequence every run, so runs compare.

/** Returns a function giving numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed = 0x9e3779b9) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}
