// How long the tests wait. A test waits for a condition (a process is live, a row is there, an element shows); its
// deadline and jest's timeout are a net under that wait, never a speed test (speed is measured by bench/). Each is
// patience(ms): `ms` is what the step takes, with room, on an idle 2-core host; TEST_PATIENCE (default 5) multiplies
// it, since a 2-core host at load 9–29 ran `npm test` about 5 times slower than idle (37 min against 3–8).
// CommonJS: jest.config.js reads it too.

const FACTOR = Number(process.env.TEST_PATIENCE || 5);
if (!(FACTOR > 0)) throw new Error(`TEST_PATIENCE must be a number above 0, not ${process.env.TEST_PATIENCE}`);

/** The deadline, in ms, of a wait that takes up to `ms` on an idle host: `ms` × TEST_PATIENCE (5 by default). */
function patience(ms) {
  return Math.round(ms * FACTOR);
}

module.exports = { patience };
