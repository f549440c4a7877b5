import { canonicalIntegerValue, INT4_MAX, parseCanonicalInteger } from './canonical-integer';

describe('parseCanonicalInteger', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['2147483648', 2147483648],
  ])('turns %p into %p', (value, expected) => {
    expect(parseCanonicalInteger({ value })).toBe(expected);
  });

  it.each([['01'], ['-1'], ['1e3'], [''], [' 1'], [['1']], [undefined], [5]])('leaves %p unchanged', (value) => {
    expect(parseCanonicalInteger({ value })).toBe(value);
  });
});

describe('canonicalIntegerValue', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['2147483647', INT4_MAX],
    ['99999999999999999999', 1e20],
  ])('reads %p as %p', (text, expected) => {
    expect(canonicalIntegerValue(text)).toBe(expected);
  });

  it.each([['01'], ['-1'], ['+1'], ['1e3'], ['1.0'], [''], [' 1'], ['1\n'], ['１'], [['1']], [undefined], [null], [5]])(
    'gives undefined for %p',
    (text) => {
      expect(canonicalIntegerValue(text)).toBeUndefined();
    },
  );
});
