import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { DevTokenAnnouncer } from './dev-token.announcer';
import { JwtAuthGuard } from './jwt-auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { VerifiedTokens } from './verified-tokens';

/** Bearer-token authentication: `JwtAuthGuard` guards every route of every module. */
@Module({
  imports: [PassportModule],
  providers: [JwtStrategy, VerifiedTokens, DevTokenAnnouncer, { provide: APP_GUARD, useClass: JwtAuthGuard }],
})
export class AuthModule {}
