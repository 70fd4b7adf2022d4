import { relative } from 'node:path';
import { BEIR_BASE_URL, BEIR_DATASETS } from '../core/datasets/catalog';
import { isDatasetError } from '../core/datasets/errors';
import { beirDatasetOrError, getDataset, type GetProgress } from '../core/datasets/get';
import { formatBytes, formatDuration, formatTransfer } from '../core/progress/format';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';
import { didYouMean } from '../core/nearest';

const HELP = `usage: irw datasets list
       irw datasets get NAME [--dir DIR] [--base-url URL] [--md5 HEX] [--force]

list   BEIR's datasets: splits, test queries, corpus size, the md5 BEIR publishes, licence notes.
get    downloads BEIR's NAME.zip, checks its md5 and unpacks it to DIR/NAME/ (corpus.jsonl, queries.jsonl,
       qrels/<split>.tsv). An interrupted download is resumed by running the same command again.

options (get):
  --dir DIR        folder that receives NAME/ (default: datasets)
  --base-url URL   where NAME.zip is fetched from (default: $IRW_BEIR_BASE_URL, else
                   ${BEIR_BASE_URL})
  --md5 HEX        checksum to expect instead of BEIR's (a mirror that repackaged the zip)
  --force          put BEIR's files into DIR/NAME again, replacing them; everything else there (your
                   judgements, runs, notes) is kept

Two gets of one dataset into one DIR run one after the other. A server that sends nothing for 60 s
($IRW_DOWNLOAD_STALL_SECONDS) stops the download; the partial file is kept, and the same command resumes it.

Progress goes to stderr: one updating line on a terminal, else a line every ${PROGRESS_SECONDS()} s.
`;

function PROGRESS_SECONDS(): number {
  const s = Number(process.env.IRW_PROGRESS_SECONDS);
  return Number.isFinite(s) && s > 0 ? s : 5;
}

function list(): number {
  const rows = BEIR_DATASETS.map((d) => [d.name, d.md5 ? 'yes' : 'no', d.splits.join(','), String(d.testQueries), d.corpus, d.md5 ?? '-', d.licence]);
  const head = ['name', 'zip', 'splits', 'test queries', 'corpus', 'md5 (BEIR)', 'licence'];
  const widths = head.map((h, i) => (i === head.length - 1 ? 0 : Math.max(h.length, ...rows.map((r) => r[i].length))));
  const line = (r: string[]) => r.map((c, i) => (widths[i] ? c.padEnd(widths[i]) : c)).join('  ');
  process.stdout.write(`${line(head)}\n${rows.map(line).join('\n')}\n`);
  process.stdout.write(`\nZips from ${BEIR_BASE_URL}/NAME.zip ('irw datasets get NAME'). Test queries: dev for msmarco.\n`);
  return EXIT.ok;
}

/** Progress on stderr: an updating line on a terminal, a line every few seconds in a log or pipe. */
function progressPrinter(name: string): { onProgress: (p: GetProgress) => void; done: () => void } {
  const tty = process.stderr.isTTY;
  const every = tty ? 200 : PROGRESS_SECONDS() * 1000;
  const start = Date.now();
  let last = 0;
  let phase = '';
  const print = (text: string) => process.stderr.write(tty ? `\r\x1b[K${text}` : `${text}\n`);
  return {
    onProgress(p) {
      const now = Date.now();
      const changed = p.phase !== phase;
      phase = p.phase;
      if (!changed && now - last < every) return;
      last = now;
      if (p.phase === 'download') print(`${name}.zip: ${formatTransfer(p.received, p.total, p.received - p.resumedFrom, now - start)}${p.resumedFrom ? ` (resumed at ${formatBytes(p.resumedFrom)})` : ''}`);
      else if (p.phase === 'verify') print(`${name}.zip: checking md5`);
      else if (p.phase === 'wait') print(`${name}: waiting for another 'irw datasets get ${name}' (process ${p.pid}) to finish`);
      else print(`${name}: unpacking ${p.entries}/${p.totalEntries} files`);
    },
    done() {
      if (tty) process.stderr.write('\r\x1b[K');
    },
  };
}

async function get(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      dir: { type: 'string', default: 'datasets' },
      'base-url': { type: 'string' },
      md5: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError("give one dataset name ('irw datasets list' shows them)");
  const name = positionals[0];
  const baseUrl = values['base-url'] ?? (process.env.IRW_BEIR_BASE_URL || undefined);
  const stallSeconds = Number(process.env.IRW_DOWNLOAD_STALL_SECONDS);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const progress = progressPrinter(name);
  const t0 = Date.now();
  try {
    const entry = beirDatasetOrError(name); // an unknown name is refused before anything is printed or fetched
    process.stderr.write(`${entry.name}: from ${(baseUrl ?? BEIR_BASE_URL).replace(/\/+$/, '')}/${entry.name}.zip\n`);
    const r = await getDataset(
      { name, dir: values.dir, baseUrl, md5: values.md5, force: values.force, stallMs: stallSeconds > 0 ? stallSeconds * 1000 : undefined },
      { signal: controller.signal, onProgress: progress.onProgress },
    );
    progress.done();
    const rel = relative(process.cwd(), r.folder);
    const where = rel && !rel.startsWith('..') ? rel : r.folder;
    if (!r.downloaded) {
      process.stderr.write(`${name}: already in ${where} (--force puts BEIR's files there again)\n`);
    } else {
      process.stderr.write(
        `${name}: ${formatBytes(r.bytes)} in ${formatDuration(Date.now() - t0)}${r.resumedFrom ? `, resumed at ${formatBytes(r.resumedFrom)}` : ''}, md5 checked, unpacked into ${where}\n`,
      );
    }
    for (const d of r.datasets) process.stdout.write(`${d.folder}\tsplits: ${d.splits.join(', ')}\n`);
    return EXIT.ok;
  } catch (e) {
    progress.done();
    if (controller.signal.aborted) {
      process.stderr.write(`\nirw datasets: cancelled; run the same command again to resume the download\n`);
      return EXIT.cancelled;
    }
    if (isDatasetError(e)) {
      process.stderr.write(`irw datasets: ${e.format()}\n`);
      return EXIT.input;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export const datasetsCommand: Command = {
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'list') return list();
    if (sub === 'get') return get(rest);
    if (sub === undefined) {
      process.stderr.write(HELP);
      return EXIT.usage;
    }
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    throw new UsageError(`unknown subcommand '${sub}'${didYouMean(sub, ['list', 'get'])} (list or get)`);
  },
};
