import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** What one folder's watcher reports: a name in it that changed (a file the index reads, by the caller's filter). */
export type OnName = (folder: string, name: string) => void;

/**
 * Node's own watchers (inotify, one folder each) on every dataset folder, its qrels/ and its runs folder:
 * code-server's watcher has given no event inside a dataset folder created after it started, and a VS Code
 * watcher for that folder is served by the same one (tried). Two gaps are closed here:
 * - a subfolder that does not exist yet when its dataset is first watched (runs/ made later), or that is removed
 *   and made again (a script that rebuilds runs/: the old watcher watches the removed folder), is watched again
 *   at the next update, so files written into it are seen;
 * - a watcher starts after the pass that found its folder, so a file written in between gives no event: when any
 *   watcher starts, `started` is called (the caller runs one more pass). An update that starts none calls nothing,
 *   so that pass does not lead to another.
 */
export class DatasetFolderWatchers {
  /** Per dataset folder: each of its three folders' watcher, undefined while that folder is not watched. */
  private readonly byDataset = new Map<string, Map<string, FSWatcher | undefined>>();

  constructor(
    private readonly reads: { dataset(name: string): boolean; qrels(name: string): boolean; run(name: string): boolean },
    private readonly changed: OnName,
    private readonly started: () => void,
  ) {}

  /** Watches exactly `dirs` (the indexed dataset folders), with `runsFolder` as each one's runs folder. */
  update(dirs: readonly string[], runsFolder: string): void {
    for (const [dir, watchers] of this.byDataset) {
      if (dirs.includes(dir) && watchers.has(join(dir, runsFolder))) continue;
      for (const w of watchers.values()) w?.close();
      this.byDataset.delete(dir);
    }
    let any = false;
    for (const dir of dirs) {
      let watchers = this.byDataset.get(dir);
      if (!watchers) this.byDataset.set(dir, (watchers = new Map()));
      const own = watchers;
      const folders: [string, (name: string) => boolean][] = [
        [
          dir,
          (name) => {
            // qrels/ or the runs folder made or removed: its watcher (if any) watches what is gone; the next
            // update starts another.
            if (name === 'qrels' || name === runsFolder) {
              own.get(join(dir, name))?.close();
              own.set(join(dir, name), undefined);
              return true;
            }
            return this.reads.dataset(name);
          },
        ],
        [join(dir, 'qrels'), (name) => this.reads.qrels(name)],
        [join(dir, runsFolder), (name) => this.reads.run(name)],
      ];
      for (const [folder, reads] of folders) {
        if (own.get(folder)) continue;
        const w = this.watch(folder, reads, own);
        own.set(folder, w);
        any ||= w !== undefined;
      }
    }
    if (any) this.started();
  }

  dispose(): void {
    this.update([], '');
  }

  private watch(folder: string, reads: (name: string) => boolean, own: Map<string, FSWatcher | undefined>): FSWatcher | undefined {
    try {
      const w = watch(folder, (_event, name) => {
        if (name && reads(name.toString())) this.changed(folder, name.toString());
      });
      // The folder went away (or the watcher failed): closed, and tried again at the next update.
      w.on('error', () => {
        w.close();
        if (own.get(folder) === w) own.set(folder, undefined);
      });
      return w;
    } catch {
      return undefined; // no such folder (yet): the workspace's watchers see its creation, and the next update tries again
    }
  }
}
