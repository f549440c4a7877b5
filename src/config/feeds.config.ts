import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsString, Matches, ValidateIf } from 'class-validator';
import { IsSafeText } from '../common/validators/is-safe-text.decorator';
import { IntegerInRange, NodeEnvVariables, readEnvironment, VariableNames } from './environment';
import { parsePublicUrl } from './http.config';

/** Most URLs of one sitemap file: the sitemaps.org protocol's limit. */
export const MAX_SITEMAP_SIZE = 50_000;

/** Most entries of one feed document. */
export const MAX_FEED_SIZE = 100;

const SITE_TITLE_RULE =
  'SITE_TITLE must be 1 to 200 characters of well-formed text, not whitespace only, no control characters';

class FeedsVariables extends NodeEnvVariables {
  @Transform(parsePublicUrl)
  @ValidateIf((_vars: unknown, value: unknown) => value !== undefined)
  @IsString({
    message:
      'SITE_URL must be an absolute http:// or https:// URL without query or fragment, such as https://blog.example',
  })
  readonly SITE_URL?: string;

  @Matches(/^[^\p{Cc}]{1,200}$/u, { message: SITE_TITLE_RULE })
  @IsSafeText({ message: SITE_TITLE_RULE })
  readonly SITE_TITLE: string = 'Blog';

  @IntegerInRange(1, MAX_FEED_SIZE)
  readonly FEED_SIZE: number = 20;

  @IntegerInRange(1, MAX_SITEMAP_SIZE)
  readonly SITEMAP_SIZE: number = MAX_SITEMAP_SIZE;
}

/** Variables of the `feeds` namespace (`PUBLIC_URL` is the `http` namespace's). */
export const FEEDS_VARIABLES: VariableNames<FeedsVariables> = {
  SITE_URL: true,
  SITE_TITLE: true,
  FEED_SIZE: true,
  SITEMAP_SIZE: true,
  NODE_ENV: true,
};

/** What the feeds and sitemaps say and how much one document holds (docs/api.md, "Feeds and sitemaps"). */
export interface FeedsConfig {
  /** The website's base URL, no trailing `/`; undefined: blogs link to the API (`PUBLIC_URL`). */
  readonly siteUrl?: string;
  /** The feeds' title. */
  readonly siteTitle: string;
  /** Entries per feed document, 1–100. */
  readonly feedSize: number;
  /** URLs per sitemap file, 1–50,000. */
  readonly sitemapSize: number;
}

/** @throws ConfigValidationError naming the first invalid `feeds` variable. */
export function loadFeedsConfig(env: NodeJS.ProcessEnv): FeedsConfig {
  const vars = readEnvironment(FeedsVariables, FEEDS_VARIABLES, env);
  return {
    ...(vars.SITE_URL === undefined ? {} : { siteUrl: vars.SITE_URL }),
    siteTitle: vars.SITE_TITLE,
    feedSize: vars.FEED_SIZE,
    sitemapSize: vars.SITEMAP_SIZE,
  };
}

/** The `feeds` namespace: `@Inject(feedsConfig.KEY) config: ConfigType<typeof feedsConfig>`. */
export const feedsConfig = registerAs('feeds', () => loadFeedsConfig(process.env));
