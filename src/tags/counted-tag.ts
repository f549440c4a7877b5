/** A tag with the number of its live blogs (published at or before the instant it was counted for). */
export interface CountedTag {
  readonly slug: string;
  readonly name: string;
  readonly count: number;
}
