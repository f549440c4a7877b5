import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsString, Matches } from 'class-validator';
import { BooleanString, readEnvironment, toList, VariableNames } from './environment';

/** A host name or an IP literal (IPv6 without brackets), as `WEBHOOK_ALLOWED_HOSTS` lists them. */
const HOST = /^[A-Za-z0-9.:_-]{1,253}$/;

class JobsVariables {
  @BooleanString()
  readonly JOBS_ENABLED: boolean = true;

  @Transform(toList)
  @IsString({ each: true })
  @Matches(HOST, { each: true, message: 'WEBHOOK_ALLOWED_HOSTS must list host names or IP literals, comma-separated' })
  readonly WEBHOOK_ALLOWED_HOSTS: string[] = [];
}

/** Variables of the `jobs` namespace. */
export const JOBS_VARIABLES: VariableNames<JobsVariables> = { JOBS_ENABLED: true, WEBHOOK_ALLOWED_HOSTS: true };

/** Background work: the job library's workers (clock, webhook deliveries, clean-up) and webhook address rules. */
export interface JobsConfig {
  /** Whether this process runs the workers; a process without them still writes every event. */
  readonly enabled: boolean;
  /** Hosts that webhooks may reach although they are not global unicast addresses, `http://` included; lower case. */
  readonly webhookAllowedHosts: readonly string[];
}

/** @throws ConfigValidationError naming the first invalid `jobs` variable. */
export function loadJobsConfig(env: NodeJS.ProcessEnv): JobsConfig {
  const vars = readEnvironment(JobsVariables, JOBS_VARIABLES, env);
  return { enabled: vars.JOBS_ENABLED, webhookAllowedHosts: vars.WEBHOOK_ALLOWED_HOSTS.map((h) => h.toLowerCase()) };
}

/** The `jobs` namespace: `@Inject(jobsConfig.KEY) config: ConfigType<typeof jobsConfig>`. */
export const jobsConfig = registerAs('jobs', () => loadJobsConfig(process.env));
