import type { OpenAPIObject } from '@nestjs/swagger';

// @ApiProperty cannot say "no other properties" or "not empty", which the pipes and the response mappers hold: the
// classes marked here get them in the document. Filled when the classes are declared, read once per document.
const closedSchemas = new Set<string>();
const nonEmptySchemas = new Set<string>();

/** Class decorator: the response schema lists every field ever sent (`additionalProperties: false`). */
export const ClosedSchema = (): ClassDecorator => (target) => {
  closedSchemas.add(target.name);
};

/** Class decorator: a partial-update body schema that must give at least one property (`minProperties: 1`). */
export const NonEmptySchema = (): ClassDecorator => (target) => {
  nonEmptySchemas.add(target.name);
};

/** Closes every request body (the pipes answer 400 to an unknown field) and the marked schemas of `document`. */
export function applySchemaRules(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const name of [...requestBodySchemas(document), ...closedSchemas]) {
    const schema = schemas[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = false;
  }
  for (const name of nonEmptySchemas) {
    const schema = schemas[name];
    if (schema && !('$ref' in schema)) schema.minProperties = 1;
  }
}

/** Names of the component schemas that some operation's request body refers to (`#/components/schemas/<name>`). */
function requestBodySchemas(document: OpenAPIObject): Set<string> {
  const names = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.post, item.put, item.patch, item.delete, item.get]) {
      const body = operation?.requestBody;
      if (body === undefined || '$ref' in body) continue;
      for (const media of Object.values(body.content)) {
        const ref = media.schema && '$ref' in media.schema ? media.schema.$ref : undefined;
        if (ref?.startsWith('#/components/schemas/')) names.add(ref.slice('#/components/schemas/'.length));
      }
    }
  }
  return names;
}
