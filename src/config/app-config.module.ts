import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { CONFIG_NAMESPACES } from './configuration';
import { readsEnvFile } from './environment';

/** Loads `.env` (outside tests) and provides every validated configuration namespace globally. */
@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: CONFIG_NAMESPACES,
      ignoreEnvFile: !readsEnvFile(process.env),
    }),
  ],
})
export class AppConfigModule {}
