import { BlogInputDto } from './blog-input.dto';

/** Body of `POST /api/v1/blogs`. */
export class CreateBlogDto extends BlogInputDto {}
