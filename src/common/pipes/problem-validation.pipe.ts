import { ArgumentMetadata, Paramtype, ValidationError, ValidationPipe } from '@nestjs/common';
import { InvalidParam, jsonPointer, ValidationProblemException } from '../filters/problem-types';

/** A broken rule of the tree: the path of the property (array items by index) and its messages. */
interface BrokenRule {
  readonly path: readonly string[];
  readonly messages: readonly string[];
}

/**
 * The broken rules of class-validator's `errors`, as `ValidationPipe` flattens them into its message list: each child
 * (array items as numeric properties) after its own children, its messages prefixed with its parents' path.
 */
export const brokenRules = (errors: readonly ValidationError[]): BrokenRule[] =>
  errors.flatMap((error) => rulesUnder(error, []));

function rulesUnder(error: ValidationError, parents: readonly string[]): BrokenRule[] {
  const path = [...parents, error.property];
  if (!error.children?.length) return [{ path, messages: Object.values(error.constraints ?? {}) }];
  return error.children.flatMap((child) => [
    ...(child.children?.length ? rulesUnder(child, path) : []),
    {
      path: [...path, child.property],
      messages: Object.values(child.constraints ?? {}).map((message) => `${path.join('.')}.${message}`),
    },
  ]);
}

/** `rules` as the `errors` of a `validation-error`: JSON Pointers into a body, else the parameter's name. */
export function invalidParams(rules: readonly BrokenRule[], location: Paramtype): InvalidParam[] {
  return rules.flatMap(({ path, messages }) =>
    messages.map((detail) =>
      location === 'body' ? { detail, pointer: jsonPointer(path) } : { detail, parameter: path.join('.') },
    ),
  );
}

/** What the exception factory gives before {@link ProblemValidationPipe} knows where the value came from. */
class ValidationFailure extends Error {
  constructor(
    readonly messages: string[],
    readonly rules: BrokenRule[],
  ) {
    super(messages.join('; '));
  }
}

/**
 * Nest's `ValidationPipe` whose 400 is a {@link ValidationProblemException}: the same 1.x `message` list, and each
 * broken rule with its JSON Pointer (body) or parameter name (query, path).
 */
export class ProblemValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return (await super.transform(value, metadata)) as unknown;
    } catch (error) {
      if (!(error instanceof ValidationFailure)) throw error;
      throw new ValidationProblemException(error.messages, invalidParams(error.rules, metadata.type));
    }
  }

  override createExceptionFactory(): (errors?: ValidationError[]) => unknown {
    return (errors = []) => new ValidationFailure(this.flattenValidationErrors(errors), brokenRules(errors));
  }
}
