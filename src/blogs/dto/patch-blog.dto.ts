import { PartialType } from '@nestjs/swagger';
import { NonEmptySchema } from '../../openapi/schema-rules';
import { BlogInputDto } from './blog-input.dto';

/**
 * Body of `PATCH /api/v1/blogs/:id`, a JSON Merge Patch (RFC 7396): a non-empty subset of the properties of create,
 * each under its rules. `null` is refused (400), not a removal, except as `publishedAt` of a draft.
 */
@NonEmptySchema()
export class PatchBlogDto extends PartialType(BlogInputDto, { skipNullProperties: false }) {}
