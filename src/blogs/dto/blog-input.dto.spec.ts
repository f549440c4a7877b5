import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import { globalPipesFor } from '../../../test/support/global-pipes';
import { BLOG_LIMITS } from './blog-input.dto';
import { CreateBlogDto } from './create-blog.dto';
import { UpdateBlogDto } from './update-blog.dto';

const { runPipes, rejectionOf, messagesOf } = globalPipesFor({ type: 'body', metatype: CreateBlogDto });

const valid = { title: 'Hello', content: 'World', author: 'Alice' };

describe('BlogInputDto through the global pipes', () => {
  describe('valid bodies', () => {
    it('passes a valid body and returns a CreateBlogDto with the same values', async () => {
      const result = await runPipes({ ...valid });

      expect(result).toBeInstanceOf(CreateBlogDto);
      expect(result).toEqual(valid);
    });

    it('works the same for UpdateBlogDto', async () => {
      const update = globalPipesFor({ type: 'body', metatype: UpdateBlogDto });

      await expect(update.runPipes({ ...valid })).resolves.toBeInstanceOf(UpdateBlogDto);
    });

    it('keeps strings exactly as sent (no trimming, no escaping)', async () => {
      const body = { title: '  <b>Hi</b> & "you"  ', content: '\n\tline\n', author: ' Zoë 👩‍💻 ' };

      await expect(runPipes({ ...body })).resolves.toEqual(body);
    });

    it('accepts the exact maximum lengths', async () => {
      const body = {
        title: 't'.repeat(BLOG_LIMITS.title.max),
        author: 'a'.repeat(BLOG_LIMITS.author.max),
        content: 'c'.repeat(BLOG_LIMITS.content.max),
      };
      expect(BLOG_LIMITS).toEqual({
        title: { min: 1, max: 200 },
        author: { min: 1, max: 100 },
        content: { min: 1, max: 100_000 },
      });

      await expect(runPipes(body)).resolves.toEqual(body);
    });

    it('accepts one-character fields', async () => {
      await expect(runPipes({ title: 'x', content: 'y', author: 'z' })).resolves.toBeInstanceOf(CreateBlogDto);
    });

    it('counts an astral character as one: 200 × 😀 is a valid title, 100 × 😀 a valid author', async () => {
      const body = { ...valid, title: '😀'.repeat(200), author: '😀'.repeat(100) };
      expect(body.title.length).toBe(400);

      await expect(runPipes(body)).resolves.toEqual(body);
    });
  });

  describe('lengths', () => {
    it.each([
      ['title', 201],
      ['author', 101],
      ['content', 100_001],
    ])('rejects %s of %d characters', async (field, length) => {
      const messages = await messagesOf({ ...valid, [field]: 'x'.repeat(length) });

      expect(messages.some((m) => m.startsWith(field))).toBe(true);
    });

    it('rejects 201 × 😀 as title', async () => {
      const messages = await messagesOf({ ...valid, title: '😀'.repeat(201) });

      expect(messages.some((m) => m.startsWith('title'))).toBe(true);
    });

    // The DTO documents its limits "in characters (Unicode code points)". validator.js's isLength
    // also subtracts variation selectors (U+FE0E/U+FE0F), so '❤️' (2 code points) counts as 1.
    it('counts variation selectors as code points: a title of 101 × "❤️" (202 code points) is rejected', async () => {
      const title = '\u2764\uFE0F'.repeat(101);
      expect([...title].length).toBe(202);

      const messages = await messagesOf({ ...valid, title });
      expect(messages.some((m) => m.startsWith('title'))).toBe(true);
    });

    it.each(['title', 'content', 'author'])('rejects an empty %s', async (field) => {
      const messages = await messagesOf({ ...valid, [field]: '' });

      expect(messages.some((m) => m.startsWith(field))).toBe(true);
    });
  });

  describe('text content', () => {
    it.each([
      ['title', ' '],
      ['content', ' \t\n\r '],
      ['author', '\u00a0\u2003'],
    ])('rejects whitespace-only %s', async (field, value) => {
      const messages = await messagesOf({ ...valid, [field]: value });

      expect(messages).toContain(`${field} must not be whitespace only`);
    });

    it.each(['title', 'content', 'author'])('rejects U+0000 in %s', async (field) => {
      const messages = await messagesOf({ ...valid, [field]: 'a\u0000b' });

      expect(messages).toContain(`${field} must not contain U+0000`);
    });

    it.each(['title', 'content', 'author'])('rejects a lone surrogate in %s', async (field) => {
      const messages = await messagesOf({ ...valid, [field]: 'a\ud800b' });

      expect(messages.some((m) => m.startsWith(field) && /surrogate|well-formed/.test(m))).toBe(true);
    });

    it('rejects a lone low surrogate too', async () => {
      await messagesOf({ ...valid, title: '\udc00' });
    });
  });

  describe('types (no coercion)', () => {
    it.each([
      ['title', 5],
      ['content', 0],
      ['author', null],
      ['title', true],
      ['content', ['a']],
      ['author', { name: 'Alice' }],
    ])('rejects %s = %p', async (field, value) => {
      const messages = await messagesOf({ ...valid, [field]: value });

      expect(messages.some((m) => m.startsWith(field))).toBe(true);
    });

    it('does not coerce a number into a string', async () => {
      const messages = await messagesOf({ ...valid, title: 5 });

      expect(messages).toContain('title must be a string');
    });
  });

  describe('missing fields', () => {
    it.each(['title', 'content', 'author'])('rejects a body without %s', async (field) => {
      const body: Record<string, unknown> = { ...valid };
      delete body[field];

      const messages = await messagesOf(body);
      expect(messages.some((m) => m.startsWith(field))).toBe(true);
    });

    it('rejects an empty object naming all three fields', async () => {
      const messages = await messagesOf({});

      for (const field of ['title', 'content', 'author']) {
        expect(messages.some((m) => m.startsWith(field))).toBe(true);
      }
    });

    it('rejects a field set to undefined', async () => {
      await messagesOf({ ...valid, author: undefined });
    });
  });

  describe('extra properties', () => {
    it('rejects an extra id with "property id should not exist"', async () => {
      const messages = await messagesOf({ ...valid, id: 1 });

      expect(messages).toContain('property id should not exist');
    });

    it.each(['createdAt', 'updatedAt', 'ownerId', 'ownerSub'])('rejects an extra %s', async (key) => {
      const messages = await messagesOf({ ...valid, [key]: 'x' });

      expect(messages).toContain(`property ${key} should not exist`);
    });

    // class-transformer skips `constructor` (like `__proto__`) when building the DTO, so the
    // whitelist never sees it; the API answers 400 naming any other property.
    it('rejects an own "constructor" key naming it', async () => {
      const body: unknown = JSON.parse('{"constructor":"x","title":"t","content":"c","author":"a"}');

      const messages = await messagesOf(body);
      expect(messages.some((m) => m.includes('constructor'))).toBe(true);
    });

    it('rejects an own __proto__ key (from JSON.parse) naming __proto__', async () => {
      const body: unknown = JSON.parse('{"__proto__":1,"title":"t","content":"c","author":"a"}');
      expect(Object.prototype.hasOwnProperty.call(body, '__proto__')).toBe(true);

      const messages = await messagesOf(body);
      expect(messages.some((m) => m.includes('__proto__'))).toBe(true);
    });

    it('rejects an own __proto__ key holding an object', async () => {
      const body: unknown = JSON.parse('{"__proto__":{"isAdmin":true},"title":"t","content":"c","author":"a"}');

      const messages = await messagesOf(body);
      expect(messages.some((m) => m.includes('__proto__'))).toBe(true);
    });
  });

  describe('body shape', () => {
    it('answers 415 UnsupportedMediaTypeException when there is no parsed body', async () => {
      const error = await rejectionOf(undefined, UnsupportedMediaTypeException);

      expect(error.getStatus()).toBe(415);
    });

    it('rejects an array body with 400', async () => {
      const error = await rejectionOf([valid], BadRequestException);

      expect(error.getStatus()).toBe(400);
    });

    it.each([[null], ['a string'], [42], [true]])('rejects a non-object body %p with 400', async (body) => {
      const error = await rejectionOf(body, BadRequestException);

      expect(error.getStatus()).toBe(400);
    });
  });

  describe('publishing fields and slug', () => {
    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ['a status', { status: 'draft' }, { status: 'draft' }],
      [
        'publishedAt with an offset, cut to the millisecond',
        { publishedAt: '2026-12-01T10:00:00.1239+01:00' },
        { publishedAt: new Date('2026-12-01T09:00:00.123Z') },
      ],
      ['publishedAt null', { publishedAt: null }, { publishedAt: null }],
      ['the first instant', { publishedAt: '1970-01-01T00:00:00Z' }, { publishedAt: new Date(0) }],
      [
        'the last instant',
        { publishedAt: '9999-12-31T23:59:59.999Z' },
        { publishedAt: new Date('9999-12-31T23:59:59.999Z') },
      ],
      ['a slug', { slug: 'hello-world-2' }, { slug: 'hello-world-2' }],
      ['a slug of 200 characters', { slug: 'a'.repeat(200) }, { slug: 'a'.repeat(200) }],
    ])('accepts %s', async (_name, extra, expected) => {
      await expect(runPipes({ ...valid, ...extra })).resolves.toEqual({ ...valid, ...expected });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown status', { status: 'live' }, 'status must be one of draft, scheduled, published'],
      ['status null', { status: null }, 'status must be one of draft, scheduled, published'],
      ['a date without zone', { publishedAt: '2026-12-01T10:00:00' }, 'publishedAt must be an RFC 3339'],
      ['an instant before 1970', { publishedAt: '1969-12-31T23:59:59.999Z' }, 'publishedAt must be an RFC 3339'],
      ['an instant after 9999', { publishedAt: '9999-12-31T23:59:59.999-00:01' }, 'publishedAt must be an RFC 3339'],
      ['a number', { publishedAt: 1_700_000_000_000 }, 'publishedAt must be an RFC 3339'],
      ['upper case in a slug', { slug: 'Hello' }, 'slug must be lower-case letters'],
      ['a double hyphen', { slug: 'a--b' }, 'slug must be lower-case letters'],
      ['an empty slug', { slug: '' }, 'slug must be lower-case letters'],
      ['a slug of 201 characters', { slug: 'a'.repeat(201) }, 'slug must be at most 200 characters long'],
      ['a slug that is no string', { slug: 7 }, 'slug must be a string'],
      ['slug null', { slug: null }, 'slug must be a string'],
    ])('rejects %s naming it', async (_name, extra, start) => {
      const messages = await messagesOf({ ...valid, ...extra });
      expect(messages).toHaveLength(1);
      expect(messages[0].startsWith(start)).toBe(true);
    });
  });
});
