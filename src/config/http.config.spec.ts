import { loadHttpConfig } from './http.config';

/** Expects `load` to throw a ConfigValidationError whose message is one line naming `variable`. */
function expectRejected(load: () => unknown, variable: string): void {
  expect(load).toThrow(
    expect.objectContaining({
      name: 'ConfigValidationError',
      message: expect.stringMatching(new RegExp(`^Invalid configuration: .*${variable}.*$`)),
    }),
  );
}

describe('loadHttpConfig', () => {
  it('defaults: port 3000 of 127.0.0.1 only, TRUST_PROXY off, CORS closed, 10 s drain', () => {
    expect(loadHttpConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      trustProxy: false,
      corsOrigins: [],
      shutdownTimeoutMs: 10_000,
      publicUrl: 'http://127.0.0.1:3000',
    });
    expect(loadHttpConfig({ CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
  });

  it('reads every variable', () => {
    expect(
      loadHttpConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        TRUST_PROXY: '1',
        CORS_ORIGINS: 'https://app.example, http://localhost:5173',
        SHUTDOWN_TIMEOUT_MS: '2500',
        PUBLIC_URL: 'https://api.blog.example/',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      trustProxy: 1,
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
      shutdownTimeoutMs: 2500,
      publicUrl: 'https://api.blog.example',
    });
  });

  it.each<[string, unknown]>([
    ['true', true],
    ['false', false],
    ['0', 0],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7', ['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']],
  ])('TRUST_PROXY=%p is %p for Express', (value, expected) => {
    expect(loadHttpConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each<[string, string, number]>([
    ['PORT', '0', 0],
    ['PORT', '65535', 65535],
    ['SHUTDOWN_TIMEOUT_MS', '0', 0],
    ['SHUTDOWN_TIMEOUT_MS', '600000', 600_000],
  ])('accepts the bound %s=%s', (variable, value, expected) => {
    const config = loadHttpConfig({ [variable]: value });
    expect(variable === 'PORT' ? config.port : config.shutdownTimeoutMs).toBe(expected);
  });

  it.each(['0.0.0.0', '::', '::1', '192.168.1.20', 'localhost', 'blog.internal'])('accepts HOST=%s', (host) => {
    expect(loadHttpConfig({ HOST: host }).host).toBe(host);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '1.5'],
    ['PORT', '080'],
    ['HOST', ''],
    ['HOST', 'http://0.0.0.0'],
    ['HOST', '0.0.0.0:3000'],
    ['HOST', 'my host'],
    ['SHUTDOWN_TIMEOUT_MS', '600001'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['SHUTDOWN_TIMEOUT_MS', '10s'],
    ['SHUTDOWN_TIMEOUT_MS', '1.5'],
    ['SHUTDOWN_TIMEOUT_MS', '010'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.300'],
    ['TRUST_PROXY', 'loopback,'],
    ['CORS_ORIGINS', '*'],
    ['CORS_ORIGINS', 'https://app.example/path'],
    ['CORS_ORIGINS', 'app.example'],
    ['PUBLIC_URL', 'api.blog.example'],
    ['PUBLIC_URL', 'ftp://api.blog.example'],
    ['PUBLIC_URL', 'https://api.blog.example/?x=1'],
    ['PUBLIC_URL', 'https://api.blog.example/#top'],
    ['PUBLIC_URL', 'https://user:secret@api.blog.example'],
    ['PUBLIC_URL', 'https://'],
  ])('rejects %s=%p with one line naming it', (variable, value) => {
    expectRejected(() => loadHttpConfig({ [variable]: value }), variable);
  });

  it.each([
    ['PORT', 'PORT must be an integer between 0 and 65535'],
    ['HOST', 'HOST must be an IP address or a host name, such as 127.0.0.1, 0.0.0.0, :: or localhost'],
    ['SHUTDOWN_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT_MS must be an integer number of milliseconds between 0 and 600000'],
    [
      'TRUST_PROXY',
      'TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, CIDR subnets, loopback, linklocal, uniquelocal',
    ],
    ['CORS_ORIGINS', 'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example'],
    [
      'PUBLIC_URL',
      'PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, such as https://api.blog.example',
    ],
  ])('%s: %s', (variable, message) => {
    expect(() => loadHttpConfig({ [variable]: 'x y' })).toThrow(`Invalid configuration: ${message}`);
  });

  it.each<[string, string]>([
    ['https://api.blog.example', 'https://api.blog.example'],
    ['HTTPS://API.Blog.Example:443/', 'https://api.blog.example'],
    ['http://10.0.0.7:8080/blog-api/', 'http://10.0.0.7:8080/blog-api'],
  ])('PUBLIC_URL=%p is %p', (value, expected) => {
    expect(loadHttpConfig({ PUBLIC_URL: value }).publicUrl).toBe(expected);
  });

  it('PUBLIC_URL defaults to http://127.0.0.1:<PORT>; only production without it is warned about', () => {
    expect(loadHttpConfig({ PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadHttpConfig({ PORT: '8080' }).warning).toBeUndefined();
    expect(loadHttpConfig({ PORT: '8080', PUBLIC_URL: '' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadHttpConfig({ NODE_ENV: 'production', PORT: '8080' }).warning).toBe(
      'PUBLIC_URL is unset: problem type URIs, feeds and sitemaps name http://127.0.0.1:8080',
    );
    expect(loadHttpConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://api.blog.example' }).warning).toBeUndefined();
  });
});
