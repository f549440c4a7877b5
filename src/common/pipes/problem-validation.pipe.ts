import { ArgumentMetadata, Paramtype, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { InvalidParam, jsonPointer, ValidationProblemException } from '../filters/problem-types';
import { itemMessages } from './item-rules';

/** A broken rule of the tree: the path of the property (array items by index) and its messages. */
interface BrokenRule {
  readonly path: readonly string[];
  readonly messages: readonly string[];
}

/**
 * The broken rules of class-validator's `errors`, as `ValidationPipe` flattens them into its message list: each child
 * (array items as numeric properties) after its own children, its messages prefixed with its parents' path; a rule
 * with `each` broken by items of an array is one rule per such item ({@link itemMessages}).
 */
export const brokenRules = (errors: readonly ValidationError[]): BrokenRule[] =>
  errors.flatMap((error) => rulesUnder(error, []));

function rulesUnder(error: ValidationError, parents: readonly string[]): BrokenRule[] {
  if (!error.children?.length) return ownRules(error, parents);
  const path = [...parents, error.property];
  return error.children.flatMap((child) => [
    ...(child.children?.length ? rulesUnder(child, path) : []),
    ...ownRules(child, path),
  ]);
}

/** The rules `error` itself breaks, under `parents`, each message prefixed with their path. */
function ownRules(error: ValidationError, parents: readonly string[]): BrokenRule[] {
  const prefix = parents.map((parent) => `${parent}.`).join('');
  return itemMessages(error).map(({ index, message }) => ({
    path: [...parents, error.property, ...(index === undefined ? [] : [index])],
    messages: [`${prefix}${message}`],
  }));
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
  /** `options`, each error keeping the object it was found in: {@link itemMessages} reads its rules. */
  constructor(options?: ValidationPipeOptions) {
    super({ ...options, validationError: { target: true, ...options?.validationError } });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return (await super.transform(value, metadata)) as unknown;
    } catch (error) {
      if (!(error instanceof ValidationFailure)) throw error;
      throw new ValidationProblemException(error.messages, invalidParams(error.rules, metadata.type));
    }
  }

  override createExceptionFactory(): (errors?: ValidationError[]) => unknown {
    return (errors = []) => {
      const rules = brokenRules(errors);
      return new ValidationFailure(
        rules.flatMap((rule) => rule.messages),
        rules,
      );
    };
  }
}
