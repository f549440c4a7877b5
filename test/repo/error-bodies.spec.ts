import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// One exception filter builds every error body (docs/api.md, "Errors"; contract 1.8): code elsewhere throws an
// HttpException and never writes an error answer itself. This check reads the syntax of every source file of src/.
const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** The files that may build an error body, and why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'src/common/filters/all-exceptions.filter.ts': 'the filter that builds every error body',
  'src/openapi/api-error-responses.decorator.ts': "the OpenAPI examples of the filter's bodies",
};

/** Statuses from 400 up, by their `HttpStatus` name. */
const ERROR_STATUS_NAMES =
  /^(BAD_REQUEST|UNAUTHORIZED|PAYMENT_REQUIRED|FORBIDDEN|NOT_FOUND|METHOD_NOT_ALLOWED|NOT_ACCEPTABLE|PROXY_AUTHENTICATION_REQUIRED|REQUEST_TIMEOUT|CONFLICT|GONE|LENGTH_REQUIRED|PRECONDITION_FAILED|PAYLOAD_TOO_LARGE|URI_TOO_LONG|UNSUPPORTED_MEDIA_TYPE|REQUESTED_RANGE_NOT_SATISFIABLE|EXPECTATION_FAILED|I_AM_A_TEAPOT|MISDIRECTED|UNPROCESSABLE_ENTITY|LOCKED|FAILED_DEPENDENCY|PRECONDITION_REQUIRED|TOO_MANY_REQUESTS|UNRECOVERABLE_ERROR|INTERNAL_SERVER_ERROR|NOT_IMPLEMENTED|BAD_GATEWAY|SERVICE_UNAVAILABLE|GATEWAY_TIMEOUT|HTTP_VERSION_NOT_SUPPORTED)$/;

/** True when `node` is a literal status of 400 to 599, or `HttpStatus.<an error status>`. */
function isErrorStatus(node: ts.Node | undefined): boolean {
  if (node === undefined) return false;
  if (ts.isNumericLiteral(node)) return Number(node.text) >= 400 && Number(node.text) <= 599;
  return ts.isPropertyAccessExpression(node) && ERROR_STATUS_NAMES.test(node.name.text);
}

const propertyNames = (object: ts.ObjectLiteralExpression): Set<string> =>
  new Set(
    object.properties.flatMap((property) =>
      property.name !== undefined && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
        ? [property.name.text]
        : [],
    ),
  );

const calledName = (call: ts.CallExpression): string | undefined =>
  ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : undefined;

/**
 * Where `source` writes an error body itself, as `line: text`: an object literal with `statusCode` and `message` (the
 * 1.x body) or with `status`, `title` and `detail` (a problem); `.status(<4xx|5xx>)` followed by `.json`, `.send` or
 * `.end`; `writeHead` or `sendStatus` with a 4xx or 5xx.
 */
export function errorBodyWrites(source: string, fileName = 'sample.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node): void => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${line + 1}: ${node.getText(file).split('\n')[0]}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const names = propertyNames(node);
      const legacy = names.has('statusCode') && names.has('message');
      const problem = names.has('status') && names.has('title') && names.has('detail');
      if (legacy || problem) report(node);
    }
    if (ts.isCallExpression(node)) {
      const name = calledName(node);
      if ((name === 'writeHead' || name === 'sendStatus') && isErrorStatus(node.arguments[0])) report(node);
      if (
        (name === 'json' || name === 'send' || name === 'end') &&
        ts.isPropertyAccessExpression(node.expression) &&
        ts.isCallExpression(node.expression.expression) &&
        calledName(node.expression.expression) === 'status' &&
        isErrorStatus(node.expression.expression.arguments[0])
      ) {
        report(node);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The TypeScript files under `dir` but the unit tests, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('one exception filter builds every error body', () => {
  it.each<[string, string, number]>([
    ['res.status(404).json(…)', "res.status(404).json({ error: 'no' });", 1],
    ['response.status(HttpStatus.CONFLICT).send(…)', 'response.status(HttpStatus.CONFLICT).send(text);', 1],
    ['res.status(503).end()', 'res.status(503).end();', 1],
    ['writeHead(500, …)', "res.writeHead(500, { 'Content-Type': 'application/json' });", 1],
    ['sendStatus(401)', 'res.sendStatus(401);', 1],
    ['a 1.x body literal', "const body = { statusCode: 400, error: 'Bad Request', message: 'no' };", 1],
    ['a problem literal', "reply(res, { type: 'about:blank', status, title, detail: 'x' }, status);", 1],
    ['a success', 'res.status(201).json(blog);', 0],
    ['a status taken from a kept answer', 'response.status(answer.status).json(answer.body);', 0],
    ['a webhook attempt', 'const r = { ok, statusCode, durationMs, error };', 0],
    ['a thrown exception', "throw new NotFoundException('Blog 7 not found');", 0],
  ])('finds %s', (_name, source, count) => {
    expect(errorBodyWrites(source)).toHaveLength(count);
  });

  it('no file of src/ writes an error body but the filter (and the OpenAPI examples of its bodies)', () => {
    const files = sourceFiles(SRC).map((path) => relative(ROOT, path).split('\\').join('/'));
    expect(files).toEqual(expect.arrayContaining(Object.keys(ALLOWED)));
    const writes = files
      .filter((file) => !(file in ALLOWED))
      .flatMap((file) => errorBodyWrites(readFileSync(join(ROOT, file), 'utf8'), file).map((w) => `${file}:${w}`));
    expect(writes).toEqual([]);
  });

  it('finds the bodies the allowed files build (the check reads them)', () => {
    for (const file of Object.keys(ALLOWED)) {
      expect({ file, writes: errorBodyWrites(readFileSync(join(ROOT, file), 'utf8')).length > 0 }).toEqual({
        file,
        writes: true,
      });
    }
  });
});
