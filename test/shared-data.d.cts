// Types of shared-data.cjs for the TypeScript tests.
export declare const REPO: string;
export declare const SHARED: string;
export declare const DATASETS: string;
export declare const RUNS: string;
export declare const GOLDEN: string;
export type SharedPart = 'datasets/scifact' | 'datasets/nfcorpus' | 'runs' | 'golden' | 'tokenizers';
export declare function missingShared(parts?: SharedPart[], shared?: string): SharedPart[];
export declare function missingSharedMessage(missing: SharedPart[], shared?: string): string;
export declare function needsShared(...parts: SharedPart[]): string | false;
