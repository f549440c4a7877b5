/** One line for an operator: the error's message or, for an `AggregateError` without one, its inner ones. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const inner = error instanceof AggregateError ? (error.errors as unknown[]).map(describeFailure) : [];
  return inner.length > 0 ? inner.join('; ') : error.name;
}
