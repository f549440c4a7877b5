import { ApiProperty } from '@nestjs/swagger';
import { INT4_MAX } from '../../common/canonical-integer';
import { ClosedSchema } from '../../openapi/schema-rules';

/** A deleted blog in its `blog.deleted` event. */
@ClosedSchema()
export class DeletedBlogResponse {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: INT4_MAX, example: 1 })
  readonly id!: number;

  @ApiProperty({ description: 'Its slug when it was deleted.', example: 'hello' })
  readonly slug!: string;
}
