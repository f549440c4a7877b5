import { Controller, Get, Query } from '@nestjs/common';
import { RequiredScope } from '../auth/required-scope.decorator';
import { ChangePageResponse } from './dto/change-page.dto';
import { ListChangesQueryDto } from './dto/list-changes-query.dto';
import { ApiChangesResource, ApiListChanges } from './events.api-docs';
import { EVENTS_READ_SCOPE } from './events.constants';
import { EventsService } from './events.service';

/** `/api/v1/changes`: the change feed, for tokens with the scope `events:read`. */
@Controller({ path: 'changes', version: '1' })
@RequiredScope(EVENTS_READ_SCOPE)
@ApiChangesResource()
export class ChangesController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiListChanges()
  changes(@Query() query: ListChangesQueryDto): Promise<ChangePageResponse> {
    return this.events.changes(query.after, query.limit);
  }
}
