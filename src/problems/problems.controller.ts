import { Controller, Get, Header, NotFoundException, Param, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access.decorator';
import { PROBLEMS_PATH } from '../common/filters/all-exceptions.filter';
import { PROBLEM_TYPES, ProblemType, ProblemTypeName } from '../common/filters/problem-types';
import { ApiErrorResponses, ApiProblemResponse } from '../openapi/api-error-responses.decorator';

/** How long a problem page may be kept, in seconds: a day (it changes only with a release). */
export const PROBLEM_PAGE_MAX_AGE_SECONDS = 86_400;

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `text` as HTML, its `code` spans (between backticks) as `<code>`. */
const inline = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page of the problem type `name`: its title, status, what it means and what a client does. */
export function problemPage(name: ProblemTypeName, type: ProblemType): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(type.title)}</title></head>`,
    '<body>',
    `<h1>${escapeHtml(type.title)}</h1>`,
    `<p>Problem type <code>${name}</code>, answered with HTTP status ${type.status}.</p>`,
    `<h2>What it means</h2><p>${inline(type.meaning)}</p>`,
    `<h2>What to do</h2><p>${inline(type.action)}</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** `GET /problems/<name>`: the page of each problem type an error's `type` names (RFC 9457 §3.1.1). */
@Controller({ path: PROBLEMS_PATH, version: VERSION_NEUTRAL })
@Public()
@ApiTags('problems')
export class ProblemsController {
  /** `GET /problems/:name` (any letter case) → 200 the type's HTML page, cacheable for a day; 404 for no problem type. */
  @Get(':name')
  @Header('Cache-Control', `public, max-age=${PROBLEM_PAGE_MAX_AGE_SECONDS}`)
  @Header('Content-Type', 'text/html; charset=utf-8')
  @ApiOperation({
    operationId: 'getProblemType',
    summary: "A problem type's page: what the problem means and what a client does about it",
    security: [],
  })
  @ApiParam({ name: 'name', schema: { type: 'string', enum: Object.keys(PROBLEM_TYPES) } })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page, HTML.', schema: { type: 'string' } })
  @ApiProblemResponse(404, { description: 'No problem type has this name.', example: 'Problem type teapot not found' })
  @ApiErrorResponses(429)
  page(@Param('name') name: string): string {
    // Any letter case, as every other path (docs/api.md, "Letter case"); the names are lower-case.
    const typeName = name.toLowerCase() as ProblemTypeName;
    if (!Object.hasOwn(PROBLEM_TYPES, typeName)) throw new NotFoundException(`Problem type ${name} not found`);
    return problemPage(typeName, PROBLEM_TYPES[typeName]);
  }
}
