// Types of postgres-setup.js (CommonJS, shared with bench/topology.mjs); each member is documented there.
export declare const POSTGRES_PACKAGE_ROOT: string;
export declare const PGBOUNCER_BIN: string;
export declare function findPostgresBin(tools?: readonly string[]): string | undefined;
export declare function postgresUser(): { uid: number; gid: number } | undefined;
export declare function commandAs(
  runAs: string | undefined,
  command: string,
  args: readonly string[],
): [string, string[]];
export declare function initdbArgs(dataDir: string): string[];
export declare function basebackupArgs(dataDir: string, primaryPort: number): string[];
export declare function pgCtlStartArgs(
  dataDir: string,
  dir: string,
  port: number,
  settings?: Readonly<Record<string, string | number>>,
): string[];
export declare function pgBouncerIni(options: {
  dir: string;
  port: number;
  upstream: { host: string; port: string | number };
  user: string;
  poolSize?: number;
}): string;
export declare function pgBouncerUserList(user: string, password?: string): string;
