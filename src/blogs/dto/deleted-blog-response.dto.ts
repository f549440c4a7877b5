import { ApiProperty } from '@nestjs/swagger';
import { IdProperty } from '../../openapi/schema-properties';
import { ClosedSchema } from '../../openapi/schema-rules';

/** A deleted blog in its `blog.deleted` event. */
@ClosedSchema()
export class DeletedBlogResponse {
  @IdProperty({ example: 1 })
  readonly id!: number;

  @ApiProperty({ description: 'Its slug when it was deleted.', example: 'hello' })
  readonly slug!: string;
}
