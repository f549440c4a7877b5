import { PartialType } from '@nestjs/swagger';
import { NonEmptySchema } from '../../openapi/schema-rules';
import { BlogInputDto } from './blog-input.dto';

/**
 * Body of `PATCH /api/v1/blogs/:id`, a JSON Merge Patch (RFC 7396): some of `title`, `content` and
 * `author`, each under create's rules. `null` is refused (400), not a removal: every field is required.
 */
@NonEmptySchema()
export class PatchBlogDto extends PartialType(BlogInputDto, { skipNullProperties: false }) {}
