import { Controller, ForbiddenException, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Principal } from './principal';
import { RequiredScope } from './required-scope.decorator';
import { ScopeGuard } from './scope.guard';

@Controller()
@RequiredScope('events:read')
class ScopedController {
  @Get()
  read(): void {}
}

@Controller()
class OpenController {
  @Get()
  read(): void {}
}

/** The context of a request by `user` to `controller`'s `read`. */
const contextOf = (controller: object, user?: Principal): ExecutionContextHost => {
  const context = new ExecutionContextHost([{ user }, {}, () => undefined]);
  context.setType('http');
  const prototype = Object.getPrototypeOf(controller) as { read: () => void };
  Object.assign(context, {
    getClass: () => controller.constructor,
    getHandler: () => prototype.read,
  });
  return context;
};

describe('ScopeGuard', () => {
  let guard: ScopeGuard;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ providers: [ScopeGuard, Reflector] }).compile();
    guard = moduleRef.get(ScopeGuard);
  });

  it.each([
    ['the scope alone', ['events:read']],
    ['the scope among others', ['blogs:admin', 'events:read', 'webhooks:admin']],
  ])('lets a token with %s through', (_name, scopes) => {
    expect(guard.canActivate(contextOf(new ScopedController(), { sub: 'a', scopes }))).toBe(true);
  });

  it.each([
    ['no scope', []],
    ['another scope', ['blogs:admin']],
    ['a longer scope that starts alike', ['events:read:all']],
  ])('refuses a token with %s: 403 naming the scope', (_name, scopes) => {
    const refuse = (): boolean => guard.canActivate(contextOf(new ScopedController(), { sub: 'a', scopes }));
    expect(refuse).toThrow(ForbiddenException);
    expect(refuse).toThrow('This operation requires a token with the scope events:read');
  });

  it('lets every caller through a route without a required scope', () => {
    expect(guard.canActivate(contextOf(new OpenController(), undefined))).toBe(true);
  });
});
