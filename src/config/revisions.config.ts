import { registerAs } from '@nestjs/config';
import { IntegerInRange, readEnvironment, VariableNames } from './environment';

class RevisionsVariables {
  @IntegerInRange(1, 1000)
  readonly REVISIONS_KEPT: number = 50;
}

/** Variables of the `revisions` namespace. */
export const REVISIONS_VARIABLES: VariableNames<RevisionsVariables> = { REVISIONS_KEPT: true };

/** Blog revisions (docs/api.md, "Revisions"). */
export interface RevisionsConfig {
  /** How many revisions of each blog are kept, the newest; older ones are deleted by the next write. */
  readonly kept: number;
}

/** @throws ConfigValidationError naming `REVISIONS_KEPT` when it is not an integer from 1 to 1000. */
export function loadRevisionsConfig(env: NodeJS.ProcessEnv): RevisionsConfig {
  return { kept: readEnvironment(RevisionsVariables, REVISIONS_VARIABLES, env).REVISIONS_KEPT };
}

/** The `revisions` namespace: `@Inject(revisionsConfig.KEY) config: ConfigType<typeof revisionsConfig>`. */
export const revisionsConfig = registerAs('revisions', () => loadRevisionsConfig(process.env));
