import { loadLoggingConfig } from './logging.config';

describe('loadLoggingConfig', () => {
  it('LOG_LEVEL defaults to info, and to silent when NODE_ENV=test; an empty value is unset', () => {
    expect(loadLoggingConfig({})).toEqual({ level: 'info', nodeEnv: 'development' });
    expect(loadLoggingConfig({ NODE_ENV: 'production' })).toEqual({ level: 'info', nodeEnv: 'production' });
    expect(loadLoggingConfig({ NODE_ENV: 'test' }).level).toBe('silent');
    expect(loadLoggingConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug' }).level).toBe('debug');
    expect(loadLoggingConfig({ LOG_LEVEL: '' }).level).toBe('info');
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts LOG_LEVEL=%s', (level) => {
    expect(loadLoggingConfig({ LOG_LEVEL: level }).level).toBe(level);
  });

  it.each<[string, string, string]>([
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    ['LOG_LEVEL', 'INFO', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    ['NODE_ENV', 'staging', 'NODE_ENV must be one of the following values: development, production, test'],
  ])('rejects %s=%p: %s', (variable, value, message) => {
    expect(() => loadLoggingConfig({ [variable]: value })).toThrow(
      expect.objectContaining({ name: 'ConfigValidationError', message: `Invalid configuration: ${message}` }),
    );
  });
});
