// Jest's order (failed first, then by the last run's durations, else by file size), with the slow specs first: on a
// fresh clone there are no durations, and a two-minute spec that starts last would run alone at the end.
const Sequencer = require('@jest/test-sequencer').default;
const { SLOW_SPECS } = require('./spec-sets');

const rank = (path) => {
  const index = SLOW_SPECS.findIndex((name) => path.endsWith(`/test/${name}.e2e-spec.ts`));
  return index === -1 ? SLOW_SPECS.length : index;
};

class SlowFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    // Array.prototype.sort is stable: the other specs keep jest's order.
    return [...sorted].sort((a, b) => rank(a.path) - rank(b.path));
  }
}

module.exports = SlowFirstSequencer;
