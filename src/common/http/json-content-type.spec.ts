import { bodyMediaTypes, isJsonContentType } from './json-content-type';

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json ; charset=utf-8',
    'application/json; charset=utf-8 ',
    'application/json;',
    'application/json; foo=bar',
    'application/json; foo="x;y"; charset=utf-8',
  ])('accepts %p', (contentType) => {
    expect(isJsonContentType(contentType)).toBe(true);
  });

  it.each<[string, string | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['text/plain', 'text/plain'],
    ['text/json', 'text/json'],
    ['a +json type (merge-patch)', 'application/merge-patch+json'],
    ['a +json type (vnd.api)', 'application/vnd.api+json'],
    ['application/jsonx', 'application/jsonx'],
    ['a wildcard', 'application/*'],
    ['a list of types', 'application/json, text/plain'],
    ['charset latin1', 'application/json; charset=latin1'],
    ['charset ISO-8859-1 quoted', 'application/json; charset="ISO-8859-1"'],
    ['charset utf-16', 'application/json; charset=utf-16'],
    ['charset utf8 (not the registered name)', 'application/json; charset=utf8'],
    ['an empty charset', 'application/json; charset='],
    ['charset utf-8 followed by more text', 'application/json; charset=utf-8 x'],
    ['a second, foreign charset', 'application/json; charset=utf-8; charset=latin1'],
    ['a foreign charset first', 'application/json; charset=latin1; charset=utf-8'],
    ['an upper-case CHARSET name', 'application/json; CHARSET=latin1'],
  ])('rejects %s', (_name, contentType) => {
    expect(isJsonContentType(contentType)).toBe(false);
  });
});

describe('bodyMediaTypes and isJsonContentType of a method', () => {
  it.each([
    ['POST', ['application/json']],
    ['PUT', ['application/json']],
    ['PATCH', ['application/merge-patch+json', 'application/json']],
    [undefined, ['application/json']],
  ])('%s takes %p', (method, types) => {
    expect(bodyMediaTypes(method)).toEqual(types);
  });

  it.each([
    'application/merge-patch+json',
    'Application/Merge-Patch+JSON',
    'application/merge-patch+json; charset=utf-8',
    'application/json',
    'application/json; charset=UTF-8',
  ])('PATCH accepts %p', (contentType) => {
    expect(isJsonContentType(contentType, bodyMediaTypes('PATCH'))).toBe(true);
  });

  it.each([
    undefined,
    'text/plain',
    'application/json-patch+json',
    'application/vnd.api+json',
    'application/merge-patch+json; charset=latin1',
    'application/*',
  ])('PATCH rejects %p', (contentType) => {
    expect(isJsonContentType(contentType, bodyMediaTypes('PATCH'))).toBe(false);
  });

  it('POST and PUT still reject a JSON Merge Patch', () => {
    expect(isJsonContentType('application/merge-patch+json', bodyMediaTypes('POST'))).toBe(false);
    expect(isJsonContentType('application/merge-patch+json', bodyMediaTypes('PUT'))).toBe(false);
  });
});
