import { loadRevisionsConfig } from './revisions.config';

describe('loadRevisionsConfig', () => {
  it('keeps 50 revisions per blog by default', () => {
    expect(loadRevisionsConfig({})).toEqual({ kept: 50 });
  });

  it.each([
    ['1', 1],
    ['1000', 1000],
  ])('REVISIONS_KEPT=%s keeps %p', (value, kept) => {
    expect(loadRevisionsConfig({ REVISIONS_KEPT: value })).toEqual({ kept });
  });

  it.each(['0', '1001', '-1', '1.5', '050', 'many'])(
    'REVISIONS_KEPT=%p is refused with one line naming it',
    (value) => {
      expect(() => loadRevisionsConfig({ REVISIONS_KEPT: value })).toThrow(
        /^Invalid configuration: REVISIONS_KEPT must be an integer between 1 and 1000$/,
      );
    },
  );
});
