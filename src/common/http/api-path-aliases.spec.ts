import { Controller, VERSION_NEUTRAL } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Request, Response } from 'express';
import { apiPathAliases, versionOneResources } from './api-path-aliases';

describe('apiPathAliases', () => {
  const rewrite = apiPathAliases(['blogs', 'changes']);

  /** The URL that routing sees after the middleware ran on `url`. */
  const routed = (url: string): string => {
    const request = { url } as Request;
    const next = jest.fn();
    rewrite(request, {} as Response, next);
    expect(next).toHaveBeenCalledTimes(1);
    return request.url;
  };

  it.each([
    ['/api/blogs', '/api/v1/blogs'],
    ['/v1/blogs/7?x=1', '/api/v1/blogs/7?x=1'],
    ['/API/Changes?after=3', '/api/v1/Changes?after=3'],
    ['/v1/changes', '/api/v1/changes'],
  ])('rewrites %s to %s', (url, expected) => {
    expect(routed(url)).toBe(expected);
  });

  it.each(['/api/v1/blogs', '/api/blogsx', '/api/tags', '/v2/blogs', '/health/live', '/apiblogs'])(
    'leaves %s as it is',
    (url) => {
      expect(routed(url)).toBe(url);
    },
  );
});

describe('versionOneResources', () => {
  @Controller({ path: 'posts', version: '1' })
  class PostsController {}
  @Controller({ path: ['/notes/:id/parts', 'notes'], version: ['1', '2'] })
  class NotesController {}
  @Controller({ path: 'drafts', version: '2' })
  class DraftsController {}
  @Controller({ path: 'health', version: VERSION_NEUTRAL })
  class HealthController {}
  @Controller({ path: ':tenant/items', version: '1' })
  class TenantItemsController {}

  it('names the first path segment of each controller served at v1, once, sorted', async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [PostsController, NotesController, DraftsController, HealthController, TenantItemsController],
    }).compile();

    expect(versionOneResources(moduleRef.get(ModulesContainer))).toEqual(['notes', 'posts']);
  });
});
