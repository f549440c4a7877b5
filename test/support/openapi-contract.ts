import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'supertest';

/** The committed OpenAPI document (`npm run openapi` writes it; CI fails when it drifts). */
const OPENAPI_FILE = join(__dirname, '..', '..', 'openapi.json');

/** The parts of an OpenAPI 3.0 document these checks read. */
interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, OperationObject>>;
  readonly components?: { readonly schemas?: Record<string, unknown> };
}

interface OperationObject {
  readonly operationId?: string;
  readonly tags?: readonly string[];
  readonly description?: string;
  readonly parameters?: readonly { readonly name?: string; readonly in?: string }[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema?: unknown }> };
  readonly responses: Record<string, ResponseObject>;
}

interface ResponseObject {
  readonly headers?: Record<string, unknown>;
  readonly content?: Record<
    string,
    { readonly schema?: unknown; readonly example?: unknown; readonly examples?: Record<string, { value: unknown }> }
  >;
}

/** An HTTP method as OpenAPI writes it. */
export type OpenApiMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Validates real responses against the committed OpenAPI document, so the document cannot lie:
 * the status must be documented for the operation, the media type too, the body must match the
 * schema (ajv, with `format` checked), and every documented response header must be present
 * (those documented `required: false` only when sent).
 */
export class OpenApiContract {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(file: string = OPENAPI_FILE) {
    this.document = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
    // OpenAPI 3.0 schema objects carry `example` and `nullable`, which ajv does not define as
    // keywords; strict mode would refuse them. Unknown formats are still errors.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.document, 'openapi');
  }

  /** The validator of the schema at `pointer` (a JSON pointer into the document). */
  validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** The ajv errors of `value` against the schema at `pointer`, or an empty list. */
  errorsOf(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }

  /**
   * Asserts that `res` is a documented answer of the operation `method` `path` (the path as the
   * document writes it, e.g. `/api/v1/blogs/{id}`).
   */
  expectDocumented(method: OpenApiMethod, path: string, res: Response): void {
    const operation = this.document.paths[path]?.[method];
    expect({ operation: `${method.toUpperCase()} ${path}`, documented: operation !== undefined }).toEqual({
      operation: `${method.toUpperCase()} ${path}`,
      documented: true,
    });
    const status = String(res.status);
    expect({ status, documented: Object.keys(operation.responses) }).toEqual({
      status,
      documented: expect.arrayContaining([status]),
    });
    const response = operation.responses[status];
    for (const [header, spec] of Object.entries(response.headers ?? {})) {
      // A header documented `required: false` (e.g. `Link`, only when a next page exists) may be absent.
      const optional = (spec as { readonly required?: boolean }).required === false;
      if (optional && res.headers[header.toLowerCase()] === undefined) continue;
      expect({ status, header, value: res.headers[header.toLowerCase()] }).toEqual({
        status,
        header,
        value: expect.any(String),
      });
    }
    if (response.content === undefined) {
      // A response documented without content (204) must have none.
      expect({ status, body: res.text ?? '', type: res.headers['content-type'] }).toEqual({
        status,
        body: '',
        type: undefined,
      });
      return;
    }
    const mediaType = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const documentedTypes = Object.keys(response.content ?? {});
    expect({ status, mediaType, documentedTypes }).toEqual({
      status,
      mediaType,
      documentedTypes: expect.arrayContaining([mediaType]),
    });
    const pointer = ['', 'paths', path, method, 'responses', status, 'content', mediaType, 'schema']
      .map(escapePointer)
      .join('/');
    const body: unknown = /^application\/([a-z.-]+\+)?json$/.test(mediaType) ? res.body : res.text;
    expect({ status, errors: this.errorsOf(pointer, body) }).toEqual({ status, errors: [] });
  }
}
