import { basename, resolve } from 'node:path';
import { InputError } from '../core/formats/errors';
import type { Bm25Explanation } from '../core/retrieval/bm25/explain';
import { LoadedIndexes } from '../core/retrieval/bm25/runContext';
import { explain, type Explanation, type ModelExplanation } from '../core/retrieval/explain';
import type { FusionExplanation } from '../core/retrieval/fusion/explain';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';

const HELP = `usage: irw explain --run FILE [--dataset DIR] QUERY_ID DOC_ID [options]

Why a run ranks a document where it does. For a BM25 run made by irw (its settings are in FILE.json), the
score broken down as Lucene's explain does: per query term its frequency in the document (tf), the document's
length (dl, as BM25's one-byte norm encodes it), document frequency, idf, k1, b, the term's weight and its
contribution, then the sum and the two steps to the run file's number (rounding to 1e-4, 1e-6 off per tie).
With RM3, the feedback documents and the expanded query's terms and weights. For a fused run, each input's
rank, raw and normalized score, weight and contribution. For a dense or re-ranked run, the score with the model
and every setting that made it. The breakdown is computed on the dataset's current files; when it does not give
the run file's score, it says so and exits 1.

options:
  --run FILE        the run (required)
  --dataset DIR     dataset folder to explain on (default: the one the run's sidecar names)
  --qrels FILE      qrels the run is evaluated on: also warn when the run was made on other data (provenance)
  --format F        text (default) or json
`;

export const explainCommand: Command = {
  async run(argv) {
    const { values, positionals } = parseCommandArgs({
      args: argv,
      allowPositionals: true,
      options: {
        run: { type: 'string' },
        dataset: { type: 'string' },
        qrels: { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    if (!values.run) throw new UsageError('--run FILE is required');
    if (positionals.length !== 2) throw new UsageError(`expected QUERY_ID and DOC_ID (got ${positionals.length} argument${positionals.length === 1 ? '' : 's'})`);
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown --format '${format}' (available: text, json)`);
    const [queryId, docId] = positionals;
    const dataset = values.dataset === undefined ? undefined : resolve(values.dataset);
    const e = await explain(resolve(values.run), queryId, docId, {
      indexes: new LoadedIndexes(1),
      ...(dataset ? { dataset } : {}),
      ...(values.qrels ? { qrels: resolve(values.qrels) } : {}),
    });
    process.stdout.write(format === 'json' ? `${JSON.stringify(e, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2)}\n` : renderText(e));
    for (const w of e.warnings) process.stderr.write(`irw explain: warning: ${w}\n`);
    if (e.reproduced === false) {
      throw new InputError({
        code: 'malformed',
        message: "the breakdown does not give the run file's score: the run was made on other data or settings than it has now",
        file: values.run,
        hint: 'Re-make the run on the current dataset (irw run with the settings in its .json sidecar), or pass the --dataset it was made on.',
      });
    }
    return EXIT.ok;
  },
};

const n4 = (x: number) => x.toFixed(4);
const n6 = (x: number) => x.toFixed(6);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  return rows.map((r) => `  ${r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  ')}`.trimEnd()).join('\n');
}

/** The explanation as text: where the run puts the document, then the breakdown of its kind. */
export function renderText(e: Explanation): string {
  const head = [
    `run ${e.run.path} (tag ${e.run.tag})`,
    `query ${e.queryId}, document ${e.docId}: ${e.run.rank === null ? 'not in the run' : `rank ${e.run.rank}, score ${e.run.score}`}`,
    '',
  ];
  let body: string[];
  switch (e.retriever) {
    case 'bm25':
      body = bm25Text(e as Bm25Explanation);
      break;
    case 'fuse':
      body = fusionText(e as FusionExplanation);
      break;
    case 'dense':
    case 'rerank':
    case 'hybrid':
      body = modelText(e as ModelExplanation);
      break;
    default:
      body = [(e as { note: string }).note];
  }
  const verdict =
    e.reproduced === null ? [] : ['', e.reproduced ? (e.run.rank === null ? 'as in the run file, which has no line for it' : "= the run file's score") : "!= the run file's score (see the warning)"];
  return `${[...head, ...body, ...verdict].join('\n')}\n`;
}

function bm25Text(e: Bm25Explanation): string[] {
  const out: string[] = [];
  if (e.rm3) {
    out.push(
      `RM3: fbDocs ${e.rm3.fbDocs}, fbTerms ${e.rm3.fbTerms}, original query weight ${e.rm3.originalQueryWeight}; feedback documents ${e.rm3.feedbackDocs.join(', ')}`,
      `  searched weight = ${e.rm3.originalQueryWeight} x original (scaled to sum 1) + ${Number((1 - e.rm3.originalQueryWeight).toFixed(6))} x relevance model (scaled to sum 1)`,
    );
    const original = new Map(e.rm3.original.map((t) => [t.term, t.weight]));
    const model = new Map(e.rm3.model.map((t) => [t.term, t.weight]));
    out.push(table([['term', 'original', 'model', 'searched'], ...e.query.map((t) => [t.term, n4(original.get(t.term) ?? 0), n4(model.get(t.term) ?? 0), n4(t.weight)])]), '');
  }
  out.push(`BM25 k1=${e.k1} b=${e.b}; idf = ln(1 + (N - n + 0.5) / (n + 0.5)); tf-norm = tf / (tf + k1 (1 - b + b dl / avgdl)); contribution = weight x tf-norm`);
  if (e.unknownTerms.length) out.push(`query terms in no document: ${e.unknownTerms.join(', ')}`);
  for (const field of e.fields) {
    const terms = e.terms.filter((t) => t.field === field);
    const any = terms[0];
    out.push(`field ${field}${any ? ` (N ${any.docCount} documents, avgdl ${n4(any.avgdl)}, this document's dl ${any.dl})` : ''}:`);
    if (terms.length === 0) {
      out.push('  no query term occurs in this field');
      continue;
    }
    out.push(
      table([
        ['term', 'query weight', 'tf', 'n', 'idf', 'weight', 'tf-norm', 'contribution'],
        ...terms.map((t) => [t.term, String(Number(t.queryWeight.toPrecision(6))), String(t.tf), String(t.df), n4(t.idf), n4(t.weight), n4(t.tfNorm), t.tf ? n6(t.score) : '-']),
      ]),
    );
    if (e.fields.length > 1) out.push(`  field score ${n6(e.fieldScores.find((s) => s.field === field)!.score)}`);
  }
  out.push(`score (sum of contributions, as a float): ${n6(e.score)}`);
  if (e.rank === null) out.push(e.removedAsQuery ? "not ranked: the run drops the query's own document (-removeQuery)" : 'not among the run\'s hits for this query (beyond its top-k)');
  else {
    out.push(`rounded to 1e-4 (Anserini's score-ties adjuster): ${n6(e.rounded!)}`);
    if (e.ties) out.push(`lowered by ${e.ties} x 1e-6 (ties with the ${e.ties} document${e.ties > 1 ? 's' : ''} above): ${n6(e.final!)}`);
    out.push(`printed: ${e.printed} at rank ${e.rank}`);
  }
  return out;
}

function fusionText(e: FusionExplanation): string[] {
  const out = [`fusion: ${e.method}${e.method === 'rrf' ? ` (k ${e.rrfK})` : `, ${e.norm} normalization`}; score = ${e.combine}`];
  out.push(
    table([
      ['input run', 'rank', 'raw score', 'normalized', 'weight', 'contribution'],
      ...e.inputs.map((i) => [basename(i.run), i.rank === null ? '-' : String(i.rank), i.raw === null ? '-' : String(i.raw), i.normalized === null ? '-' : n6(i.normalized), String(i.weight), n6(i.contribution)]),
    ]),
  );
  out.push(`retrieved by ${e.retrievedBy} of ${e.inputs.length} runs; fused score ${e.score}`, e.rank === null ? 'not in the fused top-k' : `printed: ${e.printed} at rank ${e.rank}`);
  return out;
}

function modelText(e: ModelExplanation): string[] {
  const out = [e.note, ''];
  if (e.model) {
    out.push(`model ${e.model.dir} (${e.model.kind}): ${e.model.model.path}, sha256 ${e.model.model.sha256}`);
    for (const [k, v] of Object.entries(e.model.settings)) out.push(`  ${k}: ${JSON.stringify(v)}${e.model.sources[k] ? `  (from ${e.model.sources[k]})` : ''}`);
  } else out.push('the run records no model hashes or settings (made before runs recorded them); its sidecar says:', ...Object.entries(e.settings).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  return out;
}
