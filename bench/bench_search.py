"""Search latency and throughput: faiss flat vs numpy, IVF recall vs speed, torch on a GPU.

    python bench/bench_search.py [--sizes 10000,100000,1000000] [--queries 100]

Data: synthetic 512-d unit vectors shaped like image embeddings rather than uniform noise:
points scattered around 1024 random cluster centres plus a shared offset (CLIP embeddings
are anisotropic: two random images have cosine ~0.2-0.5), queries drawn from the same
process and never in the gallery. Uniform random vectors on the sphere, the worst case for
any approximate index, are measured too at 100k for honesty.

Latency = one query per call (what an interactive retrieval turn does); QPS = batches of
queries per call (what evaluation does). The approximate index's ``nprobe`` is swept and
the smallest setting with recall@10 >= 0.95 against exact search is reported.
Writes the ``search`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backends.index.approximate import IVFIndex  # noqa: E402
from backends.index.base import exact_topk  # noqa: E402
from backends.index.flat import FlatIndex  # noqa: E402
from bench.report import markdown_table, write_section  # noqa: E402

DIM = 512
K = 10
CLUSTERS = 1024
BATCH = 64
CHUNK = 100_000


def embedding_like(n: int, seed: int, centres: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Unit vectors: a cluster centre + noise + a shared offset, normalised (chunked)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        rows = centres[rng.integers(0, len(centres), size)]
        rows = rows + 1.1 * rng.standard_normal((size, DIM), dtype=np.float32) + offset
        out[start : start + size] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return out


def uniform(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIM), dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def numpy_search(vectors: np.ndarray, ids: np.ndarray) -> Callable[[np.ndarray, int], object]:
    return lambda queries, k: exact_topk(queries, vectors, ids, k)


def latency_ms(
    search: Callable[[np.ndarray, int], object], queries: np.ndarray
) -> tuple[float, float]:
    search(queries[:1], K)
    times = []
    for row in range(len(queries)):
        started = time.perf_counter()
        search(queries[row : row + 1], K)
        times.append((time.perf_counter() - started) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def batch_qps(search: Callable[[np.ndarray, int], object], queries: np.ndarray) -> float:
    started = time.perf_counter()
    for start in range(0, len(queries), BATCH):
        search(queries[start : start + BATCH], K)
    return len(queries) / (time.perf_counter() - started)


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    hits = [len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits)) / truth.shape[1]


def bench_size(n: int, n_queries: int, data: str, results: dict[str, list]) -> None:
    rng = np.random.default_rng(7)
    if data == "uniform":
        vectors, queries = uniform(n, 1), uniform(n_queries, 2)
    else:
        centres = 1.6 * rng.standard_normal((CLUSTERS, DIM), dtype=np.float32)
        offset = 1.2 * rng.standard_normal(DIM, dtype=np.float32)
        vectors = embedding_like(n, 1, centres, offset)
        queries = embedding_like(n_queries, 2, centres, offset)
    ids = np.arange(n, dtype=np.int64)
    label = f"{n:,}" + (" (uniform)" if data == "uniform" else "")
    print(f"[{label}] building flat", flush=True)
    flat = FlatIndex(DIM)
    flat.add(ids, vectors)
    truth, _ = flat.search(queries, K)
    lat_queries = queries[: max(30, min(n_queries, 2_000_000 // n * 5))]
    if data != "uniform":
        for name, search in (
            ("faiss flat", flat.search),
            ("numpy matmul", numpy_search(vectors, ids)),
        ):
            p50, p95 = latency_ms(search, lat_queries)
            qps = batch_qps(search, queries)
            results["exact"].append([label, name, f"{p50:.2f}", f"{p95:.2f}", f"{qps:,.0f}"])
            print(results["exact"][-1], flush=True)
    flat_qps = batch_qps(flat.search, queries)
    flat_p50, _ = latency_ms(flat.search, lat_queries)
    print(f"[{label}] building ivf", flush=True)
    started = time.perf_counter()
    ivf = IVFIndex(DIM, min_train=min(n, 20_000))
    ivf.add(ids, vectors)
    build = time.perf_counter() - started
    chosen = None
    for nprobe in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        if nprobe > (ivf.nlist or 1):
            break
        ivf.nprobe = nprobe
        found, _ = ivf.search(queries, K)
        rec = recall(found, truth)
        qps = batch_qps(ivf.search, queries)
        p50, p95 = latency_ms(ivf.search, lat_queries)
        row = [
            label,
            ivf.nlist,
            nprobe,
            f"{rec:.3f}",
            f"{p50:.2f}",
            f"{p95:.2f}",
            f"{qps:,.0f}",
            f"{qps / flat_qps:.1f}x",
            f"{flat_p50 / p50:.1f}x",
            f"{build:.0f}",
        ]
        print(row, flush=True)
        if rec >= 0.95 and chosen is None:
            chosen = row
            results["ivf"].append(row)
        elif chosen is None and nprobe == 256:
            results["ivf"].append(row)
        if rec >= 0.99:
            break
    ivf.nprobe = None
    found, _ = ivf.search(queries, K)
    results["default"].append([label, ivf.nlist, ivf.nprobe, f"{recall(found, truth):.3f}"])
    bench_gpu(label, vectors, ids, queries, truth, results)


def bench_gpu(
    label: str,
    vectors: np.ndarray,
    ids: np.ndarray,
    queries: np.ndarray,
    truth: np.ndarray,
    results: dict[str, list],
) -> None:
    import torch

    if not torch.cuda.is_available():
        return
    from backends.index.torch_gpu import TorchIndex

    index = TorchIndex(DIM, device="cuda")
    index.add(ids, vectors)
    search = index.search

    def synced(q: np.ndarray, k: int) -> object:
        out = search(q, k)
        torch.cuda.synchronize()
        return out

    p50, p95 = latency_ms(synced, queries)
    qps = batch_qps(synced, queries)
    found, _ = index.search(queries, K)
    results["gpu"].append(
        [
            label,
            torch.cuda.get_device_name(0),
            f"{p50:.2f}",
            f"{p95:.2f}",
            f"{qps:,.0f}",
            f"{recall(found, truth):.3f}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    import faiss

    results: dict[str, list] = {"exact": [], "ivf": [], "default": [], "gpu": []}
    sizes = [int(s) for s in args.sizes.split(",")]
    for n in sizes:
        bench_size(n, args.queries, "embedding-like", results)
    if 100_000 in sizes:
        bench_size(100_000, args.queries, "uniform", results)
    body = [
        f"{DIM}-d unit vectors, k={K}, {args.queries} queries, batches of {BATCH}; "
        f"faiss and numpy on {faiss.omp_get_max_threads()} threads. Data: see "
        "`bench/bench_search.py` (clustered, embedding-like; uniform = worst case).",
        "",
        "### Exact search",
        "",
        markdown_table(
            ["gallery", "method", "p50 ms (1 query)", "p95 ms", "QPS (batched)"], results["exact"]
        ),
        "",
        "### Approximate index (`ivf`: faiss IVF-Flat), smallest nprobe with recall@10 >= 0.95",
        "",
        markdown_table(
            [
                "gallery",
                "nlist",
                "nprobe",
                "recall@10",
                "p50 ms",
                "p95 ms",
                "QPS",
                "QPS vs flat",
                "latency vs flat",
                "build s",
            ],
            results["ivf"],
        ),
        "",
        "Default `nprobe` (nlist/32, at least 8) and its recall@10:",
        "",
        markdown_table(["gallery", "nlist", "nprobe", "recall@10"], results["default"]),
    ]
    if results["gpu"]:
        body += [
            "",
            "### Torch exact search on the GPU",
            "",
            markdown_table(
                ["gallery", "GPU", "p50 ms", "p95 ms", "QPS", "recall@10 vs fp32"], results["gpu"]
            ),
        ]
    else:
        body += ["", "No CUDA device on this machine: the torch GPU index was not measured."]
    text = "\n".join(body)
    print(text)
    if not args.no_write:
        write_section("search", "Vector search (bench/bench_search.py)", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
