import { Injectable } from '@nestjs/common';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';

const PUBLISH_DUE: PreparedStatement = {
  name: 'blogs.publish-due',
  text: `SELECT "publish_due_blogs"() AS "published"`,
};

/** Scheduled blogs (`blog_publications`, kept by the blogs' events trigger) going live by the clock. */
@Injectable()
export class BlogPublicationsRepository {
  constructor(private readonly sql: StatementRunner) {}

  /** Writes `blog.published` for every scheduled blog whose instant has passed, once; returns how many. */
  async publishDue(): Promise<number> {
    const { rows } = await this.sql.onPrimary<{ published: number }>(PUBLISH_DUE, []);
    return rows[0].published;
  }
}
