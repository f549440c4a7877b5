import { Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { BlogsModule } from './blogs/blogs.module';
import { CommentsModule } from './comments/comments.module';
import { ProblemsModule } from './problems/problems.module';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { FeedsModule } from './feeds/feeds.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RevisionsModule } from './revisions/revisions.module';
import { TagsModule } from './tags/tags.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The application: configuration, logging, database, authentication, abuse limits, health,
 * metrics, the blog resource, its tags, its comments, its revisions, its feeds and sitemaps, the change feed and
 * webhooks.
 */
@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    DatabaseModule,
    AuthModule,
    RateLimitModule,
    HealthModule,
    ProblemsModule,
    MetricsModule,
    BlogsModule,
    TagsModule,
    CommentsModule,
    RevisionsModule,
    FeedsModule,
    EventsModule,
    WebhooksModule,
  ],
})
export class AppModule {}
