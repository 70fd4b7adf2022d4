/**
 * BEIR's datasets as BEIR's README lists them (github.com/beir-cellar/beir, "Available Datasets"): name, splits,
 * test queries, corpus size and the md5 of the published zip. Four are not redistributed by BEIR (no zip, no md5):
 * they are listed so that `irw datasets list` is complete, and `get` explains how they are obtained instead.
 */
export const BEIR_BASE_URL = 'https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets';

export interface BeirDataset {
  /** BEIR's name: the zip is `<name>.zip`, unpacked into `<name>/`. */
  name: string;
  title: string;
  homepage: string;
  splits: readonly string[];
  /** Queries of the test split (dev for MS MARCO, whose test split is TREC DL), as BEIR's table gives them. */
  testQueries: number;
  /** Corpus size as BEIR's table gives it (rounded there). */
  corpus: string;
  /** md5 of the zip as BEIR publishes it; null where BEIR publishes no zip. */
  md5: string | null;
  licence: string;
}

const CHECK = "not stated by BEIR: check the dataset's homepage before use";

export const BEIR_DATASETS: readonly BeirDataset[] = [
  { name: 'msmarco', title: 'MS MARCO', homepage: 'https://microsoft.github.io/msmarco/', splits: ['train', 'dev', 'test'], testQueries: 6980, corpus: '8.84M', md5: '444067daf65d982533ea17ebd59501e4', licence: CHECK },
  { name: 'trec-covid', title: 'TREC-COVID', homepage: 'https://ir.nist.gov/covidSubmit/index.html', splits: ['test'], testQueries: 50, corpus: '171K', md5: 'ce62140cb23feb9becf6270d0d1fe6d1', licence: CHECK },
  { name: 'nfcorpus', title: 'NFCorpus', homepage: 'https://www.cl.uni-heidelberg.de/statnlpgroup/nfcorpus/', splits: ['train', 'dev', 'test'], testQueries: 323, corpus: '3.6K', md5: 'a89dba18a62ef92f7d323ec890a0d38d', licence: "none reported in the BEIR paper: check the NFCorpus authors' terms" },
  { name: 'bioasq', title: 'BioASQ', homepage: 'http://bioasq.org', splits: ['train', 'test'], testQueries: 500, corpus: '14.91M', md5: null, licence: 'not redistributed by BEIR: needs a BioASQ account (see BEIR examples/dataset)' },
  { name: 'nq', title: 'Natural Questions', homepage: 'https://ai.google.com/research/NaturalQuestions', splits: ['train', 'test'], testQueries: 3452, corpus: '2.68M', md5: 'd4d3d2e48787a744b6f6e691ff534307', licence: CHECK },
  { name: 'hotpotqa', title: 'HotpotQA', homepage: 'https://hotpotqa.github.io', splits: ['train', 'dev', 'test'], testQueries: 7405, corpus: '5.23M', md5: 'f412724f78b0d91183a0e86805e16114', licence: CHECK },
  { name: 'fiqa', title: 'FiQA-2018', homepage: 'https://sites.google.com/view/fiqa/', splits: ['train', 'dev', 'test'], testQueries: 648, corpus: '57K', md5: '17918ed23cd04fb15047f73e6c3bd9d9', licence: CHECK },
  { name: 'signal1m', title: 'Signal-1M (RT)', homepage: 'https://research.signal-ai.com/datasets/signal1m-tweetir.html', splits: ['test'], testQueries: 97, corpus: '2.86M', md5: null, licence: 'not redistributed by BEIR: request it from Signal AI (see BEIR examples/dataset)' },
  { name: 'trec-news', title: 'TREC-NEWS', homepage: 'https://trec.nist.gov/data/news2019.html', splits: ['test'], testQueries: 57, corpus: '595K', md5: null, licence: 'not redistributed by BEIR: the Washington Post collection needs a NIST agreement' },
  { name: 'robust04', title: 'Robust04', homepage: 'https://trec.nist.gov/data/robust/04.guidelines.html', splits: ['test'], testQueries: 249, corpus: '528K', md5: null, licence: 'not redistributed by BEIR: TREC disks 4 and 5 need a NIST agreement' },
  { name: 'arguana', title: 'ArguAna', homepage: 'http://argumentation.bplaced.net/arguana/data', splits: ['test'], testQueries: 1406, corpus: '8.67K', md5: '8ad3e3c2a5867cdced806d6503f29b99', licence: CHECK },
  { name: 'webis-touche2020', title: 'Touché-2020', homepage: 'https://webis.de/events/touche-20/shared-task-1.html', splits: ['test'], testQueries: 49, corpus: '382K', md5: '46f650ba5a527fc69e0a6521c5a23563', licence: CHECK },
  { name: 'cqadupstack', title: 'CQADupStack', homepage: 'http://nlp.cis.unimelb.edu.au/resources/cqadupstack/', splits: ['test'], testQueries: 13145, corpus: '457K', md5: '4e41456d7df8ee7760a7f866133bda78', licence: CHECK },
  { name: 'quora', title: 'Quora', homepage: 'https://www.quora.com/q/quoradata/First-Quora-Dataset-Release-Question-Pairs', splits: ['dev', 'test'], testQueries: 10000, corpus: '523K', md5: '18fb154900ba42a600f84b839c173167', licence: CHECK },
  { name: 'dbpedia-entity', title: 'DBPedia', homepage: 'https://github.com/iai-group/DBpedia-Entity/', splits: ['dev', 'test'], testQueries: 400, corpus: '4.63M', md5: 'c2a39eb420a3164af735795df012ac2c', licence: CHECK },
  { name: 'scidocs', title: 'SCIDOCS', homepage: 'https://allenai.org/data/scidocs', splits: ['test'], testQueries: 1000, corpus: '25K', md5: '38121350fc3a4d2f48850f6aff52e4a9', licence: CHECK },
  { name: 'fever', title: 'FEVER', homepage: 'http://fever.ai', splits: ['train', 'dev', 'test'], testQueries: 6666, corpus: '5.42M', md5: '5a818580227bfb4b35bb6fa46d9b6c03', licence: CHECK },
  { name: 'climate-fever', title: 'Climate-FEVER', homepage: 'http://climatefever.ai', splits: ['test'], testQueries: 1535, corpus: '5.42M', md5: '8b66f0a9126c521bae2bde127b4dc99d', licence: CHECK },
  { name: 'scifact', title: 'SciFact', homepage: 'https://github.com/allenai/scifact', splits: ['train', 'test'], testQueries: 300, corpus: '5K', md5: '5f7d1de60b170fc8027bb7898e2efca1', licence: 'CC BY-NC 2.0 (non-commercial), as the BEIR paper and the SciFact card list it' },
];

export function findBeirDataset(name: string): BeirDataset | undefined {
  return BEIR_DATASETS.find((d) => d.name === name.toLowerCase());
}
