import { parseCanonicalInteger } from './canonical-integer';

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
