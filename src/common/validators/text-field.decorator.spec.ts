import { globalPipesFor } from '../../../test/support/global-pipes';
import { TEXT_RULES, TextField } from './text-field.decorator';

/** A body of two text fields, as a comment has: `author` 1–100, `body` 1–10,000 code points. */
class NoteDto {
  @TextField({ max: 100, description: 'Who wrote it.', example: 'Alice' })
  readonly author!: string;

  @TextField({ min: 2, max: 10_000, description: 'The text.', example: 'Nice post' })
  readonly body!: string;
}

const { runPipes, messagesOf } = globalPipesFor({ type: 'body', metatype: NoteDto });

describe('@TextField()', () => {
  it('passes valid text as sent, an astral character counting once', async () => {
    const note = { author: '😀'.repeat(100), body: ' x\n' };

    await expect(runPipes({ ...note })).resolves.toEqual(note);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a missing field', { body: 'ok' }, 'author should not be null or undefined'],
    ['null', { author: null, body: 'ok' }, 'author should not be null or undefined'],
    ['a number', { author: 7, body: 'ok' }, 'author must be a string'],
    ['an empty string', { author: '', body: 'ok' }, 'author must be 1 to 100 characters long'],
    ['101 code points', { author: 'a'.repeat(101), body: 'ok' }, 'author must be 1 to 100 characters long'],
    ['fewer than min', { author: 'a', body: 'x' }, 'body must be 2 to 10000 characters long'],
    ['whitespace only', { author: ' \t\u00a0', body: 'ok' }, 'author must not be whitespace only'],
    ['U+0000', { author: 'a\u0000b', body: 'ok' }, 'author must not contain U+0000'],
    ['a lone surrogate', { author: 'a\ud800', body: 'ok' }, 'author must be well-formed Unicode (no lone surrogates)'],
  ])('refuses %s with one message naming the field', async (_name, body, message) => {
    await expect(messagesOf(body)).resolves.toEqual([message]);
  });

  it('reports the first failing rule only: a long number is "must be a string", not a length', async () => {
    await expect(messagesOf({ author: 1e300, body: 'ok' })).resolves.toEqual(['author must be a string']);
  });

  it('documents the field: a string with its code-point bounds, the rules and the example', () => {
    // @nestjs/swagger's metadata key of @ApiProperty (DECORATORS.API_MODEL_PROPERTIES, not exported by its entry point).
    const schema: unknown = Reflect.getMetadata('swagger/apiModelProperties', NoteDto.prototype, 'body');

    expect(schema).toMatchObject({
      type: String,
      minLength: 2,
      maxLength: 10_000,
      description: `The text. ${TEXT_RULES}`,
      example: 'Nice post',
    });
  });
});

/** A body with an optional text field, as a merge patch has them. */
class TaggedNoteDto {
  @TextField({ max: 20, optional: true, description: 'A label.', example: 'news' })
  readonly label?: string;
}

describe('@TextField({ optional: true })', () => {
  const pipes = globalPipesFor({ type: 'body', metatype: TaggedNoteDto });

  it('passes a body without the field, and the field under its rules', async () => {
    await expect(pipes.runPipes({})).resolves.toEqual({});
    await expect(pipes.runPipes({ label: 'news' })).resolves.toEqual({ label: 'news' });
  });

  it.each<[string, unknown, string]>([
    ['null', null, 'label should not be null or undefined'],
    ['a number', 7, 'label must be a string'],
    ['21 code points', 'a'.repeat(21), 'label must be 1 to 20 characters long'],
  ])('refuses %s as a required field would', async (_name, label, message) => {
    await expect(pipes.messagesOf({ label })).resolves.toEqual([message]);
  });

  it('documents the field as not required', () => {
    const schema: unknown = Reflect.getMetadata('swagger/apiModelProperties', TaggedNoteDto.prototype, 'label');

    expect(schema).toMatchObject({ type: String, required: false, maxLength: 20 });
  });
});
