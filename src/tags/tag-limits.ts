/** Length of a tag name, in characters, and of a tag slug (made from the name, cut at a `-` near the end). */
export const TAG_LIMITS = { name: { min: 1, max: 50 }, slug: { max: 50 } } as const;
