import { BlogInputDto } from './blog-input.dto';

/** Body of `PUT /api/v1/blogs/:id`: a full replacement, all three fields required. */
export class UpdateBlogDto extends BlogInputDto {}
