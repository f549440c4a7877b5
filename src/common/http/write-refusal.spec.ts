import { ForbiddenException, HttpException, NotFoundException, PreconditionFailedException } from '@nestjs/common';
import { notFound, preconditionFailed, ResourceWording, writeRefusal } from './write-refusal';

const BLOG: ResourceWording = { title: 'Blog', noun: 'blog', adminScope: 'blogs:admin' };
const COMMENT: ResourceWording = {
  title: 'Comment',
  noun: 'comment',
  adminScope: 'blogs:admin',
  otherWriters: 'the owner of its blog',
};

/** The status and message of `error`, or undefined. */
const answer = (error: HttpException | undefined) => error && { status: error.getStatus(), message: error.message };

describe('writeRefusal', () => {
  describe('a versioned resource (a blog)', () => {
    const existing = { ownerSub: 'alice', state: '3' };

    it('is 404 naming the id when the resource is gone', () => {
      const refusal = writeRefusal(BLOG, { id: 7, existing: null, owner: 'alice', versions: {}, action: 'update' });

      expect(refusal).toBeInstanceOf(NotFoundException);
      expect(answer(refusal)).toEqual({ status: 404, message: 'Blog 7 not found' });
    });

    it.each(['update', 'delete'] as const)('is 403 saying who may %s it, for another subject', (action) => {
      const refusal = writeRefusal(BLOG, { id: 7, existing, owner: 'bob', versions: {}, action });

      expect(refusal).toBeInstanceOf(ForbiddenException);
      expect(answer(refusal)).toEqual({
        status: 403,
        message: `Only the owner of this blog (the token subject that created it) or a blogs:admin token may ${action} it`,
      });
    });

    it.each([
      ['If-Match of another state', { match: ['2'] }, preconditionFailed(BLOG, 7).message],
      ['If-None-Match of its state', { noneMatch: ['3'] }, preconditionFailed(BLOG, 7).message],
      [
        'If-None-Match: *',
        null,
        'Blog 7 exists (If-None-Match: *): the precondition holds only where there is no blog',
      ],
    ])('is 412 for the owner or an admin when %s, saying why', (_name, versions, message) => {
      for (const owner of ['alice', undefined]) {
        const refusal = writeRefusal(BLOG, { id: 7, existing, owner, versions, action: 'update' });

        expect(refusal).toBeInstanceOf(PreconditionFailedException);
        expect(answer(refusal)).toEqual({ status: 412, message });
      }
    });

    it('is 403 before 412', () => {
      const refusal = writeRefusal(BLOG, { id: 7, existing, owner: 'bob', versions: null, action: 'delete' });

      expect(refusal).toBeInstanceOf(ForbiddenException);
    });

    it('is undefined when the owner meets the preconditions (a rule of its own refused the write)', () => {
      expect(
        writeRefusal(BLOG, { id: 7, existing, owner: 'alice', versions: { match: ['3'] }, action: 'update' }),
      ).toBe(undefined);
    });
  });

  describe('a resource without versions (a comment: its owner, its blog owner or an admin may delete it)', () => {
    const existing = { ownerSub: 'carol', otherWriterSubs: ['alice'] };

    it('is 404 naming the id when the comment is gone', () => {
      expect(answer(writeRefusal(COMMENT, { id: 5, existing: null, owner: 'carol', action: 'delete' }))).toEqual({
        status: 404,
        message: 'Comment 5 not found',
      });
    });

    it('is 403 for a subject who is neither, naming the other writers', () => {
      const refusal = writeRefusal(COMMENT, { id: 5, existing, owner: 'bob', action: 'delete' });

      expect(refusal).toBeInstanceOf(ForbiddenException);
      expect(refusal?.message).toBe(
        'Only the owner of this comment (the token subject that created it), the owner of its blog or a blogs:admin ' +
          'token may delete it',
      );
    });

    it.each([
      ['its owner', 'carol'],
      ['its blog owner', 'alice'],
      ['an admin', undefined],
    ])('is undefined for %s: no 412 without versions', (_name, owner) => {
      expect(writeRefusal(COMMENT, { id: 5, existing, owner, action: 'delete' })).toBeUndefined();
    });
  });
});

describe('notFound', () => {
  it.each<[number | string, string]>([
    [42, 'Blog 42 not found'],
    ['hello', 'Blog hello not found'],
  ])('names the id or slug %p', (id, message) => {
    expect(answer(notFound(BLOG, id))).toEqual({ status: 404, message });
  });
});
