import { getMetadataStorage } from 'class-validator';
import { EnvironmentVariables } from '../../src/config/environment';

/**
 * The names of the environment variables the service reads: the decorated properties of
 * `EnvironmentVariables`, the one configuration schema (every rule group included).
 */
export function environmentVariableNames(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(EnvironmentVariables, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}
