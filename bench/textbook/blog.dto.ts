import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** The body of `POST` and `PUT /api/v1/blogs`: the service's limits, checked by class-validator. */
export class BlogDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100_000)
  content!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  author!: string;
}
