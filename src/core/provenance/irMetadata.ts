import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, release, totalmem, type } from 'node:os';
import { basename } from 'node:path';
import type { Provenance } from './record';

/**
 * The ir_metadata block of a sidecar (schema 0.1, https://www.ir-metadata.org: Breuer et al., SIGIR 2022; the
 * run metadata TIREx asks for): the PRIMAD components this product knows — platform, implementation, method and
 * data — filled from the run's settings and provenance. Research goal and actor are the user's to add.
 */
export type IrMetadata = Record<string, unknown>;

const ANALYSIS = {
  tokenizer: 'Lucene StandardTokenizer (UAX #29 word boundaries), EnglishPossessiveFilter, LowerCaseFilter',
  stemmer: 'Porter (Lucene PorterStemFilter)',
  stopwords: "Lucene EnglishAnalyzer's 33 stopwords",
};

const TIES = {
  bm25: "Anserini's ScoreTiesAdjusterReranker: scores rounded to 1e-4, each tie lowered by 1e-6",
  order: 'trec_eval order: score descending, then document id descending',
};

/** ir_metadata's method.retrieval stages for a run's settings (the sidecar's top-level keys). */
function retrievalStages(settings: Record<string, unknown>, provenance: Provenance): Record<string, unknown>[] {
  const s = settings as Record<string, never>;
  const bm25 = (p: Record<string, unknown>) => {
    const stages: Record<string, unknown>[] = [
      { name: 'bm25', method: 'BM25 (Lucene 9 BM25Similarity)', k1: p.k1, b: p.b, fields: p.fields, ...(p.queryWeights ? { 'query weights': p.queryWeights } : {}) },
    ];
    const rm3 = p.rm3 as Record<string, unknown> | null | undefined;
    if (rm3) stages.push({ name: 'rm3', method: "RM3 (Anserini's Rm3Reranker)", ...rm3, reranks: 'bm25' });
    return stages;
  };
  const model = provenance.inputs.model;
  const neural = (name: string) => ({ name, method: model?.kind ?? name, model: model?.dir, ...(model?.settings ?? {}) });
  switch (s.retriever as string) {
    case 'bm25':
      return bm25(settings);
    case 'dense':
      return [neural('dense')];
    case 'rerank':
      return [{ ...neural('cross-encoder'), reranks: 'first stage', 'first stage': provenance.inputs.firstStage?.path, depth: s.depth }];
    case 'hybrid': {
      const fusion = s.fusion as Record<string, unknown>;
      const last = bm25(s.bm25 as Record<string, unknown>).at(-1)!.name;
      return [
        ...bm25(s.bm25 as Record<string, unknown>),
        neural('dense'),
        { name: 'fusion', method: fusion.method, normalization: fusion.norm, weights: fusion.weights, interpolates: [last, 'dense'] },
      ];
    }
    case 'fuse': {
      const fusion = s.fusion as Record<string, unknown>;
      return [{ name: 'fusion', method: fusion.method, normalization: fusion.norm, weights: fusion.weights, depth: fusion.depth, interpolates: (s.runs as string[]).map((r) => basename(r)) }];
    }
    default:
      return [];
  }
}

export function irMetadata(tag: string, settings: Record<string, unknown>, provenance: Provenance): IrMetadata {
  const { inputs } = provenance;
  const retriever = settings.retriever as string;
  const usesBm25 = retriever === 'bm25' || retriever === 'hybrid';
  const libraries = [`node==${process.versions.node}`];
  if (inputs.model) libraries.push(`onnxruntime-node==${packageVersion('onnxruntime-node') ?? 'unknown'}`);
  const p = provenance.product;
  return {
    'schema-version': '0.1',
    tag,
    platform: {
      hardware: { cpu: { model: cpus()[0]?.model ?? 'unknown', architecture: arch(), 'number of cores': cpus().length }, ram: `${Math.round(totalmem() / 2 ** 30)} GB` },
      'operating system': { kernel: `${type()} ${release()}`, ...(distribution() ? { distribution: distribution() } : {}) },
      software: { libraries: { javascript: libraries }, 'retrieval toolkit': [`${p.name}==${p.version}`] },
    },
    implementation: { executable: { cmd: provenance.command }, source: { lang: ['typescript'], ...(p.commit ? { commit: p.commit } : {}) } },
    method: {
      automatic: true,
      'score ties': retriever === 'bm25' ? TIES.bm25 : TIES.order,
      ...(usesBm25 ? { indexing: ANALYSIS } : {}),
      retrieval: retrievalStages(settings, provenance),
    },
    data: {
      'test collection': {
        ...(inputs.dataset ? { name: basename(inputs.dataset), source: inputs.dataset } : {}),
        ...(inputs.qrels ? { qrels: inputs.qrels.path } : {}),
        ...(inputs.queries ? { topics: inputs.queries.path } : {}),
      },
    },
  };
}

function distribution(): string | null {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

function packageVersion(name: string): string | null {
  try {
    const path = require.resolve(`${name}/package.json`);
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version : null;
  } catch {
    return null;
  }
}
