import type { Type } from '@nestjs/common';
import { PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants';
import type { ModulesContainer } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';

/**
 * Express middleware: rewrites `/api/<resource>…` and `/v1/<resource>…` to `/api/v1/<resource>…` before routing, for
 * each of `resources` (`blogs`). Any letter case, as Express routes case-insensitively.
 */
export function apiPathAliases(
  resources: readonly string[],
): (request: Request, response: Response, next: NextFunction) => void {
  const names = resources.map((resource) => resource.replace(/\./g, '\\.'));
  const alias = new RegExp(`^/(?:api|v1)/(?=(?:${names.join('|')})(?:[/?]|$))`, 'i');
  return (request, _response, next) => {
    if (alias.test(request.url)) request.url = request.url.replace(alias, '/api/v1/');
    next();
  };
}

/**
 * The first path segment (a plain word, not a parameter or pattern) of every controller of `modules` served at version
 * `1` (`/api/v1/<resource>…`, `sitemap.xml` too), sorted and without repeats: the resources {@link apiPathAliases} rewrites.
 */
export function versionOneResources(modules: ModulesContainer): string[] {
  const resources = [...modules.values()].flatMap((module) =>
    [...module.controllers.values()].flatMap((wrapper) => {
      const controller = wrapper.metatype as Type;
      const version = Reflect.getMetadata(VERSION_METADATA, controller) as unknown;
      const versions: unknown[] = Array.isArray(version) ? version : [version];
      if (!versions.includes('1')) return [];
      const paths = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
      return (Array.isArray(paths) ? paths : [paths ?? ''])
        .map((path) => path.replace(/^\/+/, '').split('/')[0])
        .filter((segment) => /^[\w.-]+$/.test(segment));
    }),
  );
  return [...new Set(resources)].sort();
}
