import { ENVIRONMENT_VARIABLES } from '../../src/config/configuration';

/** The names of the environment variables the service reads: those of every configuration namespace. */
export function environmentVariableNames(): string[] {
  return [...ENVIRONMENT_VARIABLES];
}
