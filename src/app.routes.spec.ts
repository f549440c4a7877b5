import { Body, Controller, Get, Post, Put, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { MetadataScanner } from '@nestjs/core/metadata-scanner';
import { Test } from '@nestjs/testing';
import { AppModule } from './app.module';
import { JSON_BODY_METADATA, JsonBody, NO_BODY_METADATA, NoBody } from './common/http/json-body.decorator';

const METHODS_WITH_BODY = new Set([RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH]);

/**
 * `Controller.handler` of every route of `controllers` that takes a body (POST, PUT, PATCH or `@Body()`) that nothing
 * reads and that is not marked `@NoBody()`.
 */
function routesWithUnreadBody(controllers: readonly Type[]): string[] {
  const scanner = new MetadataScanner();
  return controllers.flatMap((controller) =>
    scanner
      .getAllMethodNames(controller.prototype as object)
      .filter((name) => {
        const handler = (controller.prototype as Record<string, object>)[name];
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) return false;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
        const args = Object.keys((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as object);
        const takesBody =
          METHODS_WITH_BODY.has(method) || args.some((key) => key.startsWith(`${RouteParamtypes.BODY}:`));
        const declared =
          Reflect.getMetadata(JSON_BODY_METADATA, handler) === true ||
          Reflect.getMetadata(NO_BODY_METADATA, handler) === true;
        return takesBody && !declared;
      })
      .map((name) => `${controller.name}.${name}`),
  );
}

describe('routes of AppModule', () => {
  it('read the JSON body of every POST, PUT and PATCH (@JsonBody), so none answers 415 for want of a reader', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile({ preview: true });
    const controllers = [...moduleRef.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type),
    );

    expect(controllers.map((controller) => controller.name)).toContain('BlogsController');
    expect(routesWithUnreadBody(controllers)).toEqual([]);
  });

  it('the check names a body route without @JsonBody or @NoBody, and passes one with either', () => {
    @Controller('fixture')
    class FixtureController {
      @Post('plain')
      plain(): void {}

      @Get('body')
      body(@Body() _body: object): void {}

      @Post('read')
      read(@JsonBody() _body: object): void {}

      @Put('none')
      @NoBody()
      none(): void {}

      @Get()
      list(): void {}
    }

    expect(routesWithUnreadBody([FixtureController])).toEqual(['FixtureController.plain', 'FixtureController.body']);
  });
});
