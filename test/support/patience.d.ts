// Types of patience.js (CommonJS, read by jest.config.js); documented there.
export declare function patience(ms: number): number;
