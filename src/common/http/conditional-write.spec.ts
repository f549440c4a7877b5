import {
  BadRequestException,
  ForbiddenException,
  InternalServerErrorException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import { conditionalWrite, writableSql, writableValues } from './conditional-write';
import type { ResourceWording } from './write-refusal';

const NOTE: ResourceWording = { title: 'Note', noun: 'note', adminScope: 'notes:admin' };

describe('conditionalWrite', () => {
  const alice = { ownerSub: 'alice', state: '3' };
  /** Alice's update of note 7, without preconditions, that nothing stores, and the note as Alice's. */
  const NOTE_UPDATE = {
    wording: NOTE,
    id: 7,
    owner: 'alice',
    action: 'update',
    versions: {},
    write: async () => null,
    current: async () => alice,
  } as const;
  /** Alice's delete of note 7, a resource without versions, that deletes nothing. */
  const NOTE_DELETE = {
    wording: NOTE,
    id: 7,
    owner: 'alice',
    action: 'delete',
    write: async () => false,
    current: async () => ({ ownerSub: 'alice' }),
  } as const;

  it('answers what the write returned, without reading the resource again', async () => {
    const current = jest.fn();

    await expect(conditionalWrite({ ...NOTE_UPDATE, write: async () => 'stored', current })).resolves.toBe('stored');
    expect(current).not.toHaveBeenCalled();
  });

  it('passes the versions to the write, and never writes under If-None-Match: * (null)', async () => {
    const write = jest.fn().mockResolvedValue(true);
    const versions = { match: ['3'] };

    await conditionalWrite({ ...NOTE_UPDATE, versions, write });
    expect(write).toHaveBeenCalledWith(versions);
    write.mockClear();
    await expect(conditionalWrite({ ...NOTE_UPDATE, versions: null, write })).rejects.toThrow(
      PreconditionFailedException,
    );
    expect(write).not.toHaveBeenCalled();
  });

  it.each([
    ['gone', null, 'alice', {}, NotFoundException, 'Note 7 not found'],
    ['another owner', alice, 'bob', {}, ForbiddenException, 'Only the owner of this note'],
    ['another state', alice, 'alice', { match: ['2'] }, PreconditionFailedException, 'Note 7 has changed'],
  ])(
    'reads the resource again after a write that changed nothing: %s',
    async (_case, existing, owner, versions, type, message) => {
      const refusal = conditionalWrite({ ...NOTE_UPDATE, owner, versions, current: async () => existing });

      await expect(refusal).rejects.toThrow(type);
      await expect(refusal).rejects.toThrow(message);
    },
  );

  it("asks the resource's own refusal after 404, 403 and 412, then 412 for a conditional write, then 500", async () => {
    await expect(
      conditionalWrite({ ...NOTE_UPDATE, ownRefusal: () => new BadRequestException('own') }),
    ).rejects.toThrow('own');
    await expect(conditionalWrite({ ...NOTE_UPDATE, conditional: true })).rejects.toThrow(PreconditionFailedException);
    await expect(conditionalWrite(NOTE_UPDATE)).rejects.toThrow(
      new InternalServerErrorException('The update was not stored'),
    );
  });

  it('writes again up to `attempts` times when nothing explains the refusal, then 500 naming the resource', async () => {
    const write = jest.fn().mockResolvedValueOnce(false).mockResolvedValueOnce(true);

    await conditionalWrite({ ...NOTE_DELETE, attempts: 3, write });
    expect(write).toHaveBeenCalledTimes(2);
    await expect(conditionalWrite({ ...NOTE_DELETE, attempts: 3 })).rejects.toThrow(
      new InternalServerErrorException('The note was not deleted'),
    );
  });
});

describe('writableSql', () => {
  it('compares the state expression with $3 and $4 and the owner with $2', () => {
    const sql = writableSql('"version"::text');

    expect(sql).toContain('"id" = $1 AND ($2::text IS NULL OR "owner_sub" = $2)');
    expect(sql).toContain('"version"::text = ANY($3::text[])');
    expect(sql).toContain('"version"::text <> ALL($4::text[])');
  });

  it.each([
    [{ owner: undefined, versions: {} }, [7, null, null, null]],
    [{ owner: 'alice', versions: { match: ['3'], noneMatch: ['4'] } }, [7, 'alice', ['3'], ['4']]],
  ])('gives the parameters $1-$4 of %j', (condition, values) => {
    expect(writableValues(7, condition)).toEqual(values);
  });
});
