import { ArgumentMetadata } from '@nestjs/common';
import { InvalidParam, ValidationProblemException } from '../filters/problem-types';
import { validatedProperties } from './json-body.pipe';
import { ProblemValidationPipe } from './problem-validation.pipe';

/**
 * {@link ProblemValidationPipe}, which also refuses a query parameter of the DTO given more than once (Express's query
 * parser makes it an array) as repeated, in the same 400 as the other parameters' problems (an unknown one, repeated or
 * not, is "should not exist" as before).
 * @throws ValidationProblemException (400) listing every problem, each naming its parameter.
 */
export class QueryValidationPipe extends ProblemValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const repeated = metadata.type === 'query' ? repeatedParameters(value, metadata) : [];
    if (repeated.length === 0) return super.transform(value, metadata);
    const rest = Object.fromEntries(Object.entries(value as object).filter(([key]) => !repeated.includes(key)));
    const messages = repeated.map((key) => `${key} must be given at most once; the query repeats it`);
    const errors: InvalidParam[] = repeated.map((key, i) => ({ detail: messages[i], parameter: key }));
    try {
      await super.transform(rest, metadata);
    } catch (error) {
      if (!(error instanceof ValidationProblemException)) throw error;
      const { message } = error.getResponse() as { message?: string | string[] };
      messages.push(...(Array.isArray(message) ? message : [String(message)]));
      errors.push(...error.errors);
    }
    throw new ValidationProblemException(messages, errors);
  }
}

/** The parameters of `query` that its DTO validates and that came more than once. */
function repeatedParameters(query: unknown, { metatype }: ArgumentMetadata): string[] {
  if (typeof query !== 'object' || query === null || !Object.values(query).some(Array.isArray)) return [];
  return validatedProperties(metatype).filter((key) => Array.isArray((query as Record<string, unknown>)[key]));
}
