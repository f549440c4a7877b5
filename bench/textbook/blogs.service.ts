import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BlogDto } from './blog.dto';
import { Blog } from './blog.entity';

/** The CRUD of blogs through the entity's `Repository`; writes are the owner's (`sub`) only. */
@Injectable()
export class BlogsService {
  constructor(@InjectRepository(Blog) private readonly blogs: Repository<Blog>) {}

  /** The first `limit` blogs from `offset`, newest first. */
  findAll(limit: number, offset: number): Promise<Blog[]> {
    return this.blogs.find({ order: { createdAt: 'DESC', id: 'DESC' }, take: limit, skip: offset });
  }

  /** @throws NotFoundException when no blog has `id`. */
  async findOne(id: number): Promise<Blog> {
    const blog = await this.blogs.findOneBy({ id });
    if (!blog) throw new NotFoundException(`Blog ${id} not found`);
    return blog;
  }

  create(dto: BlogDto, ownerSub: string): Promise<Blog> {
    return this.blogs.save(this.blogs.create({ ...dto, ownerSub }));
  }

  /** @throws NotFoundException, ForbiddenException when `ownerSub` does not own it. */
  async update(id: number, dto: BlogDto, ownerSub: string): Promise<Blog> {
    const blog = await this.owned(id, ownerSub);
    return this.blogs.save(Object.assign(blog, dto));
  }

  /** @throws NotFoundException, ForbiddenException when `ownerSub` does not own it. */
  async remove(id: number, ownerSub: string): Promise<void> {
    await this.owned(id, ownerSub);
    await this.blogs.delete(id);
  }

  private async owned(id: number, ownerSub: string): Promise<Blog> {
    const blog = await this.findOne(id);
    if (blog.ownerSub !== ownerSub) throw new ForbiddenException();
    return blog;
  }
}
