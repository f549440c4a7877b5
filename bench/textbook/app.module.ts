import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Blog } from './blog.entity';
import { BlogsController, HealthController } from './blogs.controller';
import { BlogsService } from './blogs.service';
import { JwtStrategy } from './jwt.strategy';

/** The textbook app: one TypeORM connection (DATABASE_URL), the blogs resource and its JWT strategy. */
@Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Blog], synchronize: true }),
    TypeOrmModule.forFeature([Blog]),
    PassportModule,
  ],
  controllers: [BlogsController, HealthController],
  providers: [BlogsService, JwtStrategy],
})
export class AppModule {}
