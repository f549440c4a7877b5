import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';

/** The three feed formats, by the extension of their path. */
export const FEED_FORMATS = ['atom', 'rss', 'json'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** The `Content-Type` of each format (RFC 4287 §7, RSS Advisory Board, JSON Feed 1.1). */
export const FEED_MEDIA_TYPES: Readonly<Record<FeedFormat, string>> = {
  atom: 'application/atom+xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  json: 'application/feed+json; charset=utf-8',
};

/** A tag of an entry: its slug (Atom `term`) and its name. */
export interface FeedTag {
  readonly slug: string;
  readonly name: string;
}

/** One entry, the same in the three formats. */
export interface FeedEntry {
  /** The stable id: an IRI that names the blog by its id, never by its title or slug. */
  readonly id: string;
  readonly title: string;
  /** The blog's link (docs/api.md, "Feeds and sitemaps"). */
  readonly link: string;
  readonly publishedAt: Date;
  readonly updatedAt: Date;
  readonly author: string;
  readonly tags: readonly FeedTag[];
  /** The content as text. */
  readonly content: string;
}

/** One feed document: its title, links (RFC 5005 `next` when older entries follow), updated time and entries. */
export interface FeedDocument {
  readonly title: string;
  /** This document's own URL (`rel="self"`, `feed_url`). */
  readonly selfUrl: string;
  /** The feed's id: the URL of its first document, the same on every page. */
  readonly feedId: string;
  readonly siteUrl: string;
  readonly nextUrl?: string;
  readonly updated: Date;
  readonly entries: readonly FeedEntry[];
}

const ATOM = 'http://www.w3.org/2005/Atom';
const DUBLIN_CORE = 'http://purl.org/dc/elements/1.1/';
const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

/**
 * A new XML document, UTF-8; characters XML 1.0 forbids (C0 controls but tab and line ends, U+FFFE, U+FFFF, lone
 * surrogates) are left out of every text and attribute.
 */
export const xmlDocument = (): XMLBuilder => create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '' });

/** RFC 3339 in UTC with milliseconds, as the API writes instants. */
const instant = (date: Date): string => date.toISOString();

/** The Atom 1.0 document (RFC 4287), with RFC 5005 §3 `next`. */
function atom(document: FeedDocument): string {
  const feed = xmlDocument().ele(ATOM, 'feed');
  feed.ele('id').txt(document.feedId);
  feed.ele('title').txt(document.title);
  feed.ele('updated').txt(instant(document.updated));
  feed.ele('link', { rel: 'self', type: 'application/atom+xml', href: document.selfUrl });
  feed.ele('link', { rel: 'alternate', href: document.siteUrl });
  if (document.nextUrl !== undefined) feed.ele('link', { rel: 'next', href: document.nextUrl });
  for (const entry of document.entries) {
    const item = feed.ele('entry');
    item.ele('id').txt(entry.id);
    item.ele('title', { type: 'text' }).txt(entry.title);
    item.ele('link', { rel: 'alternate', href: entry.link });
    item.ele('published').txt(instant(entry.publishedAt));
    item.ele('updated').txt(instant(entry.updatedAt));
    item.ele('author').ele('name').txt(entry.author);
    for (const tag of entry.tags) item.ele('category', { term: tag.slug, label: tag.name });
    item.ele('content', { type: 'text' }).txt(entry.content);
  }
  return feed.end();
}

/** The RSS 2.0 document, with `atom:link` self and next (RFC 5005 §3) and `dc:creator`. */
function rss(document: FeedDocument): string {
  const root = xmlDocument().ele('rss', { version: '2.0', 'xmlns:atom': ATOM, 'xmlns:dc': DUBLIN_CORE });
  const channel = root.ele('channel');
  channel.ele('title').txt(document.title);
  channel.ele('link').txt(document.siteUrl);
  channel.ele('description').txt(document.title);
  channel.ele('lastBuildDate').txt(document.updated.toUTCString());
  channel.ele(ATOM, 'atom:link', { rel: 'self', type: 'application/rss+xml', href: document.selfUrl });
  if (document.nextUrl !== undefined) channel.ele(ATOM, 'atom:link', { rel: 'next', href: document.nextUrl });
  for (const entry of document.entries) {
    const item = channel.ele('item');
    item.ele('guid', { isPermaLink: 'false' }).txt(entry.id);
    item.ele('title').txt(entry.title);
    item.ele('link').txt(entry.link);
    // RFC 822 date-time (RFC 1123's four-digit year), in GMT.
    item.ele('pubDate').txt(entry.publishedAt.toUTCString());
    item.ele(DUBLIN_CORE, 'dc:creator').txt(entry.author);
    for (const tag of entry.tags) item.ele('category').txt(tag.name);
    item.ele('description').txt(entry.content);
  }
  return root.end();
}

/** The JSON Feed 1.1 document; JSON escapes every character as JSON does. */
function jsonFeed(document: FeedDocument): string {
  return JSON.stringify({
    version: JSON_FEED_VERSION,
    title: document.title,
    home_page_url: document.siteUrl,
    feed_url: document.selfUrl,
    ...(document.nextUrl === undefined ? {} : { next_url: document.nextUrl }),
    items: document.entries.map((entry) => ({
      id: entry.id,
      url: entry.link,
      title: entry.title,
      content_text: entry.content,
      date_published: instant(entry.publishedAt),
      date_modified: instant(entry.updatedAt),
      authors: [{ name: entry.author }],
      tags: entry.tags.map((tag) => tag.name),
    })),
  });
}

/** `document` written in `format`. */
export function renderFeed(format: FeedFormat, document: FeedDocument): string {
  switch (format) {
    case 'atom':
      return atom(document);
    case 'rss':
      return rss(document);
    case 'json':
      return jsonFeed(document);
  }
}
