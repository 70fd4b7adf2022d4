"""Peer side of `npm run bench:bm25`: runs xhluca/bm25s (not part of this repository) on a BEIR folder.

usage: python3 bm25sPeer.py cold DATASET OUT      whole process: read, tokenize, index, top-1000, write a TREC run
       python3 bm25sPeer.py warm DATASET          prints one JSON line: index build, queries/s at top-10 and
                                                  top-1000 (after a warm-up pass), peak RSS
The bm25s package is found through PYTHONPATH (the benchmark sets it from --bm25s or BM25S_PATH). Settings as
the issue fixes them: numpy backend, method lucene, k1 0.9, b 0.4, bm25s's English stopwords, PyStemmer.
"""
import json
import resource
import sys
import time


def read(dataset):
    ids, texts = [], []
    with open(f"{dataset}/corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            ids.append(d["_id"])
            texts.append(((d.get("title") or "") + " " + (d.get("text") or "")).strip())
    queries = {}
    with open(f"{dataset}/queries.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                queries[q["_id"]] = q.get("text") or ""
    qids = []
    seen = set()
    with open(f"{dataset}/qrels/test.tsv", encoding="utf-8") as f:
        for i, line in enumerate(f):
            parts = line.split("\t")
            if i == 0 and not parts[-1].strip().lstrip("-").isdigit():
                continue  # header
            if parts[0] not in seen and parts[0] in queries:
                seen.add(parts[0])
                qids.append(parts[0])
    return ids, texts, qids, [queries[q] for q in qids]


def main():
    mode, dataset = sys.argv[1], sys.argv[2]
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    ids, texts, qids, qtexts = read(dataset)
    t0 = time.perf_counter()
    corpus_tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="lucene", k1=0.9, b=0.4, backend="numpy")
    retriever.index(corpus_tokens, show_progress=False)
    build = time.perf_counter() - t0
    query_tokens = bm25s.tokenize(qtexts, stopwords="en", stemmer=stemmer, show_progress=False)
    query_tokens = bm25s.tokenization.convert_tokenized_to_string_list(query_tokens)
    # bm25s refuses a query with no known term unless the index has an empty token: drop such queries.
    keep = [i for i, q in enumerate(query_tokens) if any(t in retriever.vocab_dict for t in q)]
    query_tokens = [query_tokens[i] for i in keep]
    qids = [qids[i] for i in keep]
    k1000 = min(1000, len(ids))

    def retrieve(k):
        return retriever.retrieve(query_tokens, k=k, backend_selection="numpy", n_threads=0, show_progress=False)

    if mode == "cold":
        docs, scores = retrieve(k1000)
        with open(sys.argv[3], "w", encoding="utf-8") as out:
            for qi, qid in enumerate(qids):
                out.write("".join(f"{qid} Q0 {ids[d]} {r + 1} {s:.6f} bm25s\n" for r, (d, s) in enumerate(zip(docs[qi], scores[qi]))))
        return
    rates = {}
    for k in (10, k1000):
        retrieve(k)  # warm-up
        t = time.perf_counter()
        retrieve(k)
        rates[k] = len(qids) / (time.perf_counter() - t)
    print(json.dumps({
        "buildMs": build * 1000,
        "qps10": rates[10],
        "qps1000": rates[k1000],
        "queries": len(qids),
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


main()
