import {
  Body,
  Controller,
  DefaultValuePipe,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Put,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { BlogDto } from './blog.dto';
import { Blog } from './blog.entity';
import { BlogsService } from './blogs.service';

/** The authenticated request: passport-jwt's `validate` result as `user`. */
type Authenticated = Request & { user: { sub: string } };

/** `/api/v1/blogs`: list, read, create, replace and delete; writes need a bearer token. */
@Controller('blogs')
export class BlogsController {
  constructor(private readonly blogsService: BlogsService) {}

  @Get()
  findAll(
    @Query('limit', new DefaultValuePipe(10), ParseIntPipe) limit: number,
    @Query('offset', new DefaultValuePipe(0), ParseIntPipe) offset: number,
  ): Promise<Blog[]> {
    return this.blogsService.findAll(limit, offset);
  }

  @Get(':id')
  findOne(@Param('id', ParseIntPipe) id: number): Promise<Blog> {
    return this.blogsService.findOne(id);
  }

  @Post()
  @UseGuards(AuthGuard('jwt'))
  create(@Body() dto: BlogDto, @Req() req: Authenticated): Promise<Blog> {
    return this.blogsService.create(dto, req.user.sub);
  }

  @Put(':id')
  @UseGuards(AuthGuard('jwt'))
  update(@Param('id', ParseIntPipe) id: number, @Body() dto: BlogDto, @Req() req: Authenticated): Promise<Blog> {
    return this.blogsService.update(id, dto, req.user.sub);
  }

  @Delete(':id')
  @HttpCode(204)
  @UseGuards(AuthGuard('jwt'))
  remove(@Param('id', ParseIntPipe) id: number, @Req() req: Authenticated): Promise<void> {
    return this.blogsService.remove(id, req.user.sub);
  }
}

/** `GET /health/live`, which the bench waits for. */
@Controller('health')
export class HealthController {
  @Get('live')
  live(): { status: string } {
    return { status: 'ok' };
  }
}
