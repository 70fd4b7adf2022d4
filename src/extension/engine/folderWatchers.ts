import { watch as nodeWatch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** A folder's watcher, FAILED once it failed (its `error` event), undefined while the folder is not watched. */
const FAILED = 'failed';
type Slot = FSWatcher | typeof FAILED | undefined;

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
 *   so that pass does not lead to another. Nor does a watcher started again after it failed (its `error` event):
 *   a folder whose watcher fails each time would otherwise cost a pass, a scan of the workspace, at every update.
 */
export class DatasetFolderWatchers {
  /**
   * Per dataset folder: each of its three folders' watcher; undefined while that folder is not watched, FAILED
   * after its watcher failed (started again at the next update, without asking for a pass).
   */
  private readonly byDataset = new Map<string, Map<string, Slot>>();

  constructor(
    private readonly reads: { dataset(name: string): boolean; qrels(name: string): boolean; run(name: string): boolean },
    private readonly changed: OnName,
    private readonly started: () => void,
    /** node:fs's watch (a test gives one whose watchers fail). */
    private readonly watchFolder: (folder: string, listener: (event: string, name: string | Buffer | null) => void) => FSWatcher = nodeWatch,
  ) {}

  /** Watches exactly `dirs` (the indexed dataset folders), with `runsFolder` as each one's runs folder. */
  update(dirs: readonly string[], runsFolder: string): void {
    for (const [dir, watchers] of this.byDataset) {
      if (dirs.includes(dir) && watchers.has(join(dir, runsFolder))) continue;
      for (const folder of watchers.keys()) drop(watchers, folder);
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
            // update starts another, for a new folder (whatever the old one's watcher did: on Windows a removed
            // folder's watcher fails).
            if (name === 'qrels' || name === runsFolder) {
              drop(own, join(dir, name));
              return true;
            }
            return this.reads.dataset(name);
          },
        ],
        [join(dir, 'qrels'), (name) => this.reads.qrels(name)],
        [join(dir, runsFolder), (name) => this.reads.run(name)],
      ];
      for (const [folder, reads] of folders) {
        const slot = own.get(folder);
        if (slot && slot !== FAILED) continue;
        const w = this.watch(folder, reads, own);
        // A folder gone since its watcher failed (no watcher now) is a new folder when it comes back.
        own.set(folder, w);
        if (w && slot !== FAILED) any = true;
      }
    }
    if (any) this.started();
  }

  dispose(): void {
    this.update([], '');
  }

  private watch(folder: string, reads: (name: string) => boolean, own: Map<string, Slot>): FSWatcher | undefined {
    try {
      const w = this.watchFolder(folder, (_event, name) => {
        if (name && reads(name.toString())) this.changed(folder, name.toString());
      });
      // The folder went away (or the watcher failed): closed, and tried again at the next update.
      w.on('error', () => {
        w.close();
        if (own.get(folder) === w) own.set(folder, FAILED);
      });
      return w;
    } catch {
      return undefined; // no such folder (yet): the workspace's watchers see its creation, and the next update tries again
    }
  }
}

/** Closes a folder's watcher (if any) and marks the folder unwatched: the next update starts another. */
function drop(watchers: Map<string, Slot>, folder: string): void {
  const w = watchers.get(folder);
  if (w && w !== FAILED) w.close();
  watchers.set(folder, undefined);
}
