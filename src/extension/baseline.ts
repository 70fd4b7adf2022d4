/**
 * Where "Set as baseline" keeps its choice: workspaceState[`irWorkbench.baseline:<dataset folder>\t<split>`]
 * = the baseline run's file path. Panels that compare runs read it to pick their reference run.
 */
export function baselineKey(datasetDir: string, split: string): string {
  return `irWorkbench.baseline:${datasetDir}\t${split}`;
}
