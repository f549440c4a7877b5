// Redocly plugin `blog-service`: its rule `no-ambiguous-paths` is Redocly's rule of that name that reads each path
// parameter's schema. Two paths are ambiguous when one request path could match both: every segment pair can match the
// same text and both have as many parameters (Redocly's rule; a literal segment wins over a parameter otherwise). A
// literal matches a parameter only when the parameter's schema admits it: an `integer` id never matches `slug`, so
// `/blogs/{id}/comments` and `/blogs/slug/{slug}` are told apart, as the service's router tells them apart.

/** The plugin (redocly.yaml `plugins`): the rule `blog-service/no-ambiguous-paths` for OpenAPI 3. */
export default function blogServicePlugin() {
  return { id: 'blog-service', rules: { oas3: { 'no-ambiguous-paths': NoAmbiguousPaths } } };
}

/** The rule's visitor: reports the second path of each ambiguous pair on its key. */
export function NoAmbiguousPaths() {
  return {
    Paths(paths, { report, location }) {
      const seen = [];
      for (const [path, item] of Object.entries(paths)) {
        const segments = segmentsOf(path, item);
        const other = seen.find((earlier) => areAmbiguous(earlier.segments, segments));
        if (other) {
          report({
            message: `Paths should resolve unambiguously. Found two ambiguous paths: \`${other.path}\` and \`${path}\`.`,
            location: location.child([path]).key(),
          });
        }
        seen.push({ path, segments });
      }
    },
  };
}

/**
 * The segments of `path`: a literal as its text, a `{name}` as `{ schema }` from the path item's or one of its
 * operations' path parameters of that name (`{}` when none is declared inline).
 */
export function segmentsOf(path, item = {}) {
  const parameters = [item.parameters ?? [], ...Object.values(item).map((op) => op?.parameters ?? [])].flat();
  return path.split('/').map((segment) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name === undefined) return segment;
    const declared = parameters.find((p) => p && p.in === 'path' && p.name === name);
    return { schema: declared?.schema ?? {} };
  });
}

/** Whether a parameter whose schema is `schema` can take the text `literal`. */
function admits(schema, literal) {
  if (Array.isArray(schema.enum)) return schema.enum.map(String).includes(literal);
  if (schema.type === 'integer') return /^-?[0-9]+$/.test(literal);
  if (typeof schema.pattern === 'string') return new RegExp(schema.pattern, 'u').test(literal);
  return true;
}

/** Whether one request path can match both segment lists (see the file's header). */
export function areAmbiguous(a, b) {
  if (a.length !== b.length) return false;
  const parameters = (segments) => segments.filter((s) => typeof s !== 'string').length;
  if (parameters(a) !== parameters(b)) return false;
  return a.every((x, i) => {
    const y = b[i];
    if (typeof x === 'string' && typeof y === 'string') return x === y;
    if (typeof x === 'string') return admits(y.schema, x);
    if (typeof y === 'string') return admits(x.schema, y);
    return true;
  });
}
