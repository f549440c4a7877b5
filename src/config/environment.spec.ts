import { BooleanString, ConfigValidationError, IntegerInRange, readEnvironment, VariableNames } from './environment';

class Sample {
  @IntegerInRange(1, 5)
  readonly COUNT: number = 2;

  @IntegerInRange(0, 100, ' number of milliseconds')
  readonly DELAY_MS: number = 10;

  @BooleanString()
  readonly ENABLED: boolean = false;
}

const NAMES: VariableNames<Sample> = { COUNT: true, DELAY_MS: true, ENABLED: true };

const read = (env: NodeJS.ProcessEnv): Sample => readEnvironment(Sample, NAMES, env);

describe('readEnvironment', () => {
  it('keeps the defaults of unset variables and ignores unknown ones', () => {
    expect({ ...read({ SOMETHING_ELSE: 'whatever', HOME: '/root' }) }).toEqual({
      COUNT: 2,
      DELAY_MS: 10,
      ENABLED: false,
    });
  });

  it('converts canonical integers and "true"/"false"', () => {
    expect({ ...read({ COUNT: '5', DELAY_MS: '0', ENABLED: 'true' }) }).toEqual({
      COUNT: 5,
      DELAY_MS: 0,
      ENABLED: true,
    });
  });

  it.each<[NodeJS.ProcessEnv, string]>([
    [{ COUNT: '6' }, 'COUNT must be an integer between 1 and 5'],
    [{ COUNT: '01' }, 'COUNT must be an integer between 1 and 5'],
    [{ DELAY_MS: '1e2' }, 'DELAY_MS must be an integer number of milliseconds between 0 and 100'],
    [{ ENABLED: 'TRUE' }, 'ENABLED must be "true" or "false"'],
  ])('%p → one ConfigValidationError line: %s', (env, message) => {
    let caught: unknown;
    try {
      read(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigValidationError);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe('ConfigValidationError');
    expect((caught as Error).message).toBe(`Invalid configuration: ${message}`);
  });
});
