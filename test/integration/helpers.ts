// Shared by the extension-host suites: the extension under test and the fixture workspace the harness opens
// (test/vscode/fixture.mjs lays it out: one BEIR dataset folder per name, e.g. <workspace>/scifact).
import * as vscode from 'vscode';

export const EXTENSION_ID = 'ir-workbench.ir-workbench';

export interface CommandContribution {
  command: string;
  title: string;
  category?: string;
}

export interface Manifest {
  contributes: {
    commands: CommandContribution[];
    configuration: { properties: Record<string, { default?: unknown }> };
  };
}

/** The extension under development, activated (suites call this in suiteSetup before asserting commands). */
export async function activateExtension(): Promise<vscode.Extension<unknown>> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded: is extensionDevelopmentPath the repo root?`);
  await ext.activate();
  return ext;
}

export function manifest(ext: vscode.Extension<unknown>): Manifest {
  return ext.packageJSON as Manifest;
}

export function workspaceRoot(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder open: the harness opens the fixture workspace');
  return folder.uri;
}

/** A BEIR dataset folder of the fixture workspace (corpus.jsonl, queries.jsonl, qrels/test.tsv). */
export function datasetUri(name: string): vscode.Uri {
  return vscode.Uri.joinPath(workspaceRoot(), name);
}

/** Polls `probe` until it returns a truthy value (UI state such as tabs or activation updates asynchronously). */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const restores: (() => void)[] = [];

/** Replaces `target[name]` with `impl` (a dialog or message that would block a test) until restoreStubs(). */
export function stub(target: object, name: string, impl: unknown): void {
  const t = target as Record<string, unknown>;
  const original = t[name];
  t[name] = impl;
  restores.push(() => (t[name] = original));
}

/** Runs `undo` at the next restoreStubs() (a setting a test changed). */
export function onRestore(undo: () => void): void {
  restores.push(undo);
}

/** Puts back everything stub() replaced, last first (a suite's teardown). */
export function restoreStubs(): void {
  while (restores.length) restores.pop()!();
}
