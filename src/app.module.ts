import { Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { BlogsModule } from './blogs/blogs.module';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';

/** The application: configuration, database, authentication, health, metrics and the blog resource. */
@Module({
  imports: [AppConfigModule, DatabaseModule, AuthModule, HealthModule, MetricsModule, BlogsModule],
})
export class AppModule {}
