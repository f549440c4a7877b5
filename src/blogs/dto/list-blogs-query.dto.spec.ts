import { ArgumentMetadata, BadRequestException } from '@nestjs/common';
import { createGlobalPipes } from '../../common/pipes/global-pipes';
import { ListBlogsQueryDto } from './list-blogs-query.dto';

const metadata: ArgumentMetadata = { type: 'query', metatype: ListBlogsQueryDto, data: undefined };

/** Runs the application's real global pipes, in order, as Nest does for a `@Query()` parameter. */
async function runPipes(value: unknown): Promise<unknown> {
  let v = value;
  for (const p of createGlobalPipes()) v = await p.transform(v, metadata);
  return v;
}

async function messagesOf(value: unknown): Promise<string[]> {
  const error: unknown = await runPipes(value).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BadRequestException);
  const message = ((error as BadRequestException).getResponse() as { message: string | string[] }).message;
  return Array.isArray(message) ? message : [message];
}

describe('ListBlogsQueryDto through the global pipes', () => {
  it('defaults to limit 10 and offset 0, as numbers', async () => {
    const query = await runPipes({});

    expect(query).toBeInstanceOf(ListBlogsQueryDto);
    expect(query).toEqual({ limit: 10, offset: 0 });
  });

  it('turns canonical decimal strings into numbers', async () => {
    await expect(runPipes({ limit: '25', offset: '40' })).resolves.toEqual({ limit: 25, offset: 40 });
  });

  it.each([
    ['1', 1],
    ['100', 100],
  ])('accepts limit %p', async (raw, expected) => {
    const query = (await runPipes({ limit: raw })) as ListBlogsQueryDto;

    expect(query.limit).toBe(expected);
    expect(query.offset).toBe(0);
  });

  it.each(['0', '101', '1000'])('rejects limit %p naming limit', async (raw) => {
    const messages = await messagesOf({ limit: raw });

    expect(messages.some((m) => m.startsWith('limit'))).toBe(true);
  });

  it.each([
    ['0', 0],
    ['2147483647', 2147483647],
  ])('accepts offset %p', async (raw, expected) => {
    const query = (await runPipes({ offset: raw })) as ListBlogsQueryDto;

    expect(query.offset).toBe(expected);
    expect(query.limit).toBe(10);
  });

  it('rejects offset 2147483648 naming offset', async () => {
    const messages = await messagesOf({ offset: '2147483648' });

    expect(messages.some((m) => m.startsWith('offset'))).toBe(true);
  });

  it.each([
    ['01'],
    ['1.0'],
    ['1e1'],
    [''],
    ['-1'],
    ['+1'],
    [' 1'],
    ['1 '],
    ['0x10'],
    ['abc'],
    [['1', '2']],
    [{ a: '1' }],
  ])('rejects limit %p and offset %p', async (raw) => {
    const limitMessages = await messagesOf({ limit: raw });
    expect(limitMessages.some((m) => m.startsWith('limit'))).toBe(true);

    const offsetMessages = await messagesOf({ offset: raw });
    expect(offsetMessages.some((m) => m.startsWith('offset'))).toBe(true);
  });

  it('rejects numbers that are too big to be exact', async () => {
    await messagesOf({ offset: '99999999999999999999' });
  });

  it('rejects an unknown query parameter naming it', async () => {
    const messages = await messagesOf({ limit: '5', page: '2' });

    expect(messages).toContain('property page should not exist');
  });

  it('rejects an unknown "constructor" query parameter naming it', async () => {
    const messages = await messagesOf({ constructor: '1' });

    expect(messages.some((m) => m.includes('constructor'))).toBe(true);
  });

  it('reports both bad parameters at once', async () => {
    const messages = await messagesOf({ limit: '0', offset: '-1' });

    expect(messages.some((m) => m.startsWith('limit'))).toBe(true);
    expect(messages.some((m) => m.startsWith('offset'))).toBe(true);
  });
});
