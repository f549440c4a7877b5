import { Module } from '@nestjs/common';
import { ProblemsController } from './problems.controller';

/** `GET /problems/<name>`: the pages of the problem types errors name (docs/api.md, "Errors"). */
@Module({ controllers: [ProblemsController] })
export class ProblemsModule {}
