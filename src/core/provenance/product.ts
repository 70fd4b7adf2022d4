/** Which build of IR Workbench is running: its version and the commit it was built from (esbuild defines both). */
declare const IRW_VERSION: string | undefined;
declare const IRW_COMMIT: string | null | undefined;

export interface Product {
  name: 'ir-workbench';
  /** package.json's version; 'dev' when run from source (tests). */
  version: string;
  /** The git commit of the build, with "+modified" when the work tree had changes; null when unknown. */
  commit: string | null;
}

export function product(): Product {
  return {
    name: 'ir-workbench',
    version: typeof IRW_VERSION === 'string' ? IRW_VERSION : 'dev',
    commit: typeof IRW_COMMIT === 'string' ? IRW_COMMIT : null,
  };
}
