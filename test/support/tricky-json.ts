/** A seeded draw of an integer in [0, n). */
export type Draw = (n: number) => number;

/** Options of {@link trickyJson}. */
export interface TrickyJsonOptions {
  /** Strings that values and member names are made of: quotes, escapes, brackets, the name a scanner looks for. */
  readonly strings: readonly string[];
  /** From this depth on, no more arrays or objects. */
  readonly deepAt: number;
  /** An object's member; default a drawn string and a digit as the name, a drawn value. */
  readonly member?: (draw: Draw, depth: number, value: (depth: number) => unknown) => [string, unknown];
}

/**
 * A seeded generator of JSON values made to trip scanners that read JSON text by bytes (strings
 * with quotes, escapes and brackets in them, the member name the scanner looks for, nesting), for
 * tests that compare such a scanner with `JSON.parse`. The same seed draws the same values.
 */
export function trickyJson(seed: number, options: TrickyJsonOptions): { draw: Draw; value: (depth: number) => unknown } {
  let state = seed;
  const draw: Draw = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const { strings, deepAt } = options;
  const pick = (): string => strings[draw(strings.length)] ?? '';
  const member = options.member ?? ((d: Draw, depth: number, value: (depth: number) => unknown): [string, unknown] => [pick() + String(d(3)), value(depth + 1)]);
  const value = (depth: number): unknown => {
    switch (depth >= deepAt ? draw(4) : draw(6)) {
      case 0:
        return pick();
      case 1:
        return draw(1000) - 500;
      case 2:
        return [null, true, false][draw(3)];
      case 3:
        return `${pick()}${pick()}`;
      case 4:
        return Array.from({ length: draw(4) }, () => value(depth + 1));
      default: {
        const object: Record<string, unknown> = {};
        for (let i = draw(5); i > 0; i -= 1) {
          const [name, child] = member(draw, depth, value);
          object[name] = child;
        }
        return object;
      }
    }
  };
  return { draw, value };
}
