import { BadRequestException } from '@nestjs/common';
import { expectHttpError } from '../../../test/support/http-error';
import { EnumPathParam, enumParamMessage, parseEnum } from './enum-param.decorator';

const KINDS = ['like', 'love'] as const;

describe('parseEnum', () => {
  it.each(KINDS)('takes %p', (raw) => {
    expect(parseEnum('kind', KINDS, raw)).toBe(raw);
  });

  it.each([['Like'], ['like '], [''], ['wow'], [undefined], [['like']], [1]])(
    'refuses %p: 400 naming the parameter and the values',
    async (raw) => {
      await expectHttpError(
        () => parseEnum('kind', KINDS, raw),
        BadRequestException,
        400,
        'kind must be one of like, love',
      );
    },
  );

  it('enumParamMessage says what parseEnum answers', async () => {
    await expectHttpError(
      () => parseEnum('sort', KINDS, 'x'),
      BadRequestException,
      400,
      enumParamMessage('sort', KINDS),
    );
  });
});

describe('EnumPathParam', () => {
  it('documents the path parameter with its values on the handler', () => {
    class Probe {
      handler(@EnumPathParam('kind', KINDS, 'The kind.') kind: string): string {
        return kind;
      }
    }
    const parameters = Reflect.getMetadata('swagger/apiParameters', Probe.prototype.handler) as object[];
    expect(parameters).toEqual([
      {
        name: 'kind',
        in: 'path',
        required: true,
        description: 'The kind.',
        schema: { type: 'string', enum: ['like', 'love'] },
      },
    ]);
  });
});
