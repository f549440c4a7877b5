import { BlogInputDto } from './blog-input.dto';

/** Body of `POST /api/v1/blogs` (spec §4.3). */
export class CreateBlogDto extends BlogInputDto {}
