import { XMLBuilder } from 'fast-xml-parser';

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
 * Writes documents from element trees: `@_` attributes, `#text` text, arrays repeated elements. Every text and
 * attribute value passes {@link xmlText} first: the builder's own entity processing took 1.9 ms of a 20-entry feed
 * (docs/performance.md, "Feeds and sitemaps").
 */
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  suppressEmptyNode: true,
});

/** The XML declaration of every document. */
const XML_DECLARATION = { '@_version': '1.0', '@_encoding': 'UTF-8' };

/**
 * Candidates for removal: control characters, lone surrogates (in `u` mode a pair is one code point), U+FFFE, U+FFFF.
 * XML 1.0's `Char` production keeps tab, line feed, carriage return and U+007F–U+009F of them.
 */
const CONTROLS = /[\p{Cc}\p{Cs}\ufffe\uffff]/u;
const CONTROLS_ALL = /[\p{Cc}\p{Cs}\ufffe\uffff]/gu;

/** Whether the candidate `c` is a character XML 1.0 allows. */
const allowedInXml = (c: string): boolean => c === '\t' || c === '\n' || c === '\r' || (c >= '\u007f' && c <= '\u009f');

/** The five characters sitemaps.org asks to entity-escape in every value (markup in text and attributes). */
const MARKUP = /[<>&"']/;
const MARKUP_ALL = /[<>&"']/g;
const REFERENCES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * `text` as an XML text or attribute value: without the characters XML 1.0 forbids, markup escaped. Text with neither
 * (the common case) is scanned and not copied.
 */
export function xmlText(text: string): string {
  const allowed = CONTROLS.test(text) ? text.replace(CONTROLS_ALL, (c) => (allowedInXml(c) ? c : '')) : text;
  return MARKUP.test(allowed) ? allowed.replace(MARKUP_ALL, (c) => REFERENCES[c]) : allowed;
}

/** `tree` written as an XML document, escaped by the builder. */
export const xmlDocument = (tree: object): string => builder.build({ '?xml': XML_DECLARATION, ...tree });

/** RFC 3339 in UTC with milliseconds, as the API writes instants. */
const instant = (date: Date): string => date.toISOString();

/** The Atom 1.0 document (RFC 4287), with RFC 5005 §3 `next`. */
function atom(document: FeedDocument): string {
  const links = [
    { '@_rel': 'self', '@_type': 'application/atom+xml', '@_href': xmlText(document.selfUrl) },
    { '@_rel': 'alternate', '@_href': xmlText(document.siteUrl) },
    ...(document.nextUrl === undefined ? [] : [{ '@_rel': 'next', '@_href': xmlText(document.nextUrl) }]),
  ];
  return xmlDocument({
    feed: {
      '@_xmlns': ATOM,
      id: xmlText(document.feedId),
      title: xmlText(document.title),
      updated: instant(document.updated),
      link: links,
      entry: document.entries.map((entry) => ({
        id: xmlText(entry.id),
        title: { '@_type': 'text', '#text': xmlText(entry.title) },
        link: { '@_rel': 'alternate', '@_href': xmlText(entry.link) },
        published: instant(entry.publishedAt),
        updated: instant(entry.updatedAt),
        author: { name: xmlText(entry.author) },
        category: entry.tags.map((tag) => ({ '@_term': xmlText(tag.slug), '@_label': xmlText(tag.name) })),
        content: { '@_type': 'text', '#text': xmlText(entry.content) },
      })),
    },
  });
}

/** The RSS 2.0 document, with `atom:link` self and next (RFC 5005 §3) and `dc:creator`. */
function rss(document: FeedDocument): string {
  const links = [
    { '@_rel': 'self', '@_type': 'application/rss+xml', '@_href': xmlText(document.selfUrl) },
    ...(document.nextUrl === undefined ? [] : [{ '@_rel': 'next', '@_href': xmlText(document.nextUrl) }]),
  ];
  return xmlDocument({
    rss: {
      '@_version': '2.0',
      '@_xmlns:atom': ATOM,
      '@_xmlns:dc': DUBLIN_CORE,
      channel: {
        title: xmlText(document.title),
        link: xmlText(document.siteUrl),
        description: xmlText(document.title),
        lastBuildDate: document.updated.toUTCString(),
        'atom:link': links,
        item: document.entries.map((entry) => ({
          guid: { '@_isPermaLink': 'false', '#text': xmlText(entry.id) },
          title: xmlText(entry.title),
          link: xmlText(entry.link),
          // RFC 822 date-time (RFC 1123's four-digit year), in GMT.
          pubDate: entry.publishedAt.toUTCString(),
          'dc:creator': xmlText(entry.author),
          category: entry.tags.map((tag) => xmlText(tag.name)),
          description: xmlText(entry.content),
        })),
      },
    },
  });
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
