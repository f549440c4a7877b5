import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { globalPipes } from '../pipes/global-pipes';
import { JsonBody } from './json-body.decorator';

class Fixture {
  create(@JsonBody() _body: object): void {}

  update(@JsonBody() _body: object): void {}
}

/** The pipe Nest runs for the `@JsonBody()` parameter of `Fixture[method]`. */
function bodyPipeOf(method: keyof Fixture): PipeTransform {
  const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, Fixture, method) as Record<string, { pipes: PipeTransform[] }>;
  return Object.values(args)[0].pipes[0];
}

describe('@JsonBody()', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it("runs the app's global pipe instances, shared by every parameter, as for a body", async () => {
    const spies = globalPipes().map((pipe) => jest.spyOn(pipe, 'transform'));
    const metadata: ArgumentMetadata = { type: 'custom', metatype: Object, data: undefined };

    await bodyPipeOf('create').transform({ title: 'a' }, metadata);
    await bodyPipeOf('update').transform({ title: 'b' }, metadata);

    for (const spy of spies) {
      expect(spy.mock.calls).toEqual([
        [{ title: 'a' }, { ...metadata, type: 'body' }],
        [{ title: 'b' }, { ...metadata, type: 'body' }],
      ]);
    }
  });

  it('is one list, made once', () => {
    expect(globalPipes()).toBe(globalPipes());
    expect(Object.isFrozen(globalPipes())).toBe(true);
  });
});
