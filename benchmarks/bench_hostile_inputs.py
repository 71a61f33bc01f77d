"""Memory and time of refusing hostile run files, as ratios to reading a valid run of the same size.

    python benchmarks/bench_hostile_inputs.py [--mb 25] [--gzip-mb 9] [--bomb-gib 2]

Each file is evaluated (``riskeval.evaluate_runs``, one process, as ``riskeval evaluate`` does) in a
fresh Python process, which reports its peak resident memory (``resource.getrusage`` maxrss) and
the time of the evaluation.  Files of ``--mb`` MB: a valid run, blank lines, malformed lines (one
field each) and NUL bytes; compressed: a valid gzip run of about ``--gzip-mb`` MB against a gzip
file of ``--bomb-gib`` GiB of newlines (a decompression bomb), refused from the size it declares,
and the same with a small second member (so that it declares a small size), refused by the inflate
ratio once its text passes 16 MiB.
Targets: every hostile file at most 2x the memory of the valid run, the bomb refused in at most 2x
the time of reading the valid gzip run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

MEASURE = """
import json, resource, sys, time
import riskeval as rk
from riskeval.errors import RiskevalError
qrels, run = sys.argv[1:3]
rk.evaluate_runs(qrels, [qrels.replace("qrels", "small.run")], n_jobs=1)  # imports and compilation
start = time.perf_counter()
try:
    rk.evaluate_runs(qrels, [run], n_jobs=1)
    outcome = "read"
except RiskevalError as exc:
    outcome = str(exc).splitlines()[0].split(": ", 1)[-1][:90]  # without the temporary path
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "outcome": outcome}))
"""


def run_lines(n: int, topics: int, rng: np.random.Generator) -> bytes:
    """``n`` run lines over ``topics`` topics, in blocks of one topic, every document once."""
    per = -(-n // topics)
    scores = rng.random(n)
    return "".join(
        f"{1000 + i // per} Q0 doc{i} {i % per + 1} {scores[i]:.6f} bench\n" for i in range(n)
    ).encode()


def measure(qrels: Path, run: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(qrels), str(run)], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"measuring {run.name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=25)
    parser.add_argument("--gzip-mb", type=float, default=9)
    parser.add_argument("--bomb-gib", type=float, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    size = int(args.mb * 1e6)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        valid = run_lines(size // 30, 200, rng)[:size]
        valid = valid[: valid.rfind(b"\n") + 1]
        qrels = d / "qrels"
        lines = valid.splitlines()[::50]
        qrels.write_text("".join(f"{f.split()[0].decode()} 0 {f.split()[2].decode()} 1\n" for f in lines))
        (d / "small.run").write_bytes(valid[:100_000][: valid[:100_000].rfind(b"\n") + 1])
        files = {
            "valid": valid,
            "blank lines": b"\n" * len(valid),
            "malformed lines": b"x\n" * (len(valid) // 2),
            "NUL bytes": b"\x00" * len(valid),
        }
        results = {}
        for name, data in files.items():
            path = d / name.replace(" ", "_")
            path.write_bytes(data)
            results[name] = measure(qrels, path)
        gz_target = int(args.gzip_mb * 1e6)
        text = run_lines(int(gz_target * 6 / 30), 200, rng)
        packed = gzip.compress(text, 6)
        cut = text[: int(len(text) * gz_target / len(packed))]
        (d / "valid.gz").write_bytes(gzip.compress(cut[: cut.rfind(b"\n") + 1], 6))
        with open(d / "bomb.gz", "wb") as handle:
            packer = zlib.compressobj(1, zlib.DEFLATED, 31)
            block = b"\n" * 2**24
            for _ in range(int(args.bomb_gib * 2**30) // len(block)):
                handle.write(packer.compress(block))
            handle.write(packer.flush())
        # the same bomb with a small second gzip member: its declared size (the last member's) is
        # small, so only its inflate ratio refuses it
        (d / "bomb-2.gz").write_bytes((d / "bomb.gz").read_bytes() + gzip.compress(b"\n"))
        bombs = ("valid.gz", "bomb.gz", "bomb-2.gz")
        for name in bombs:
            results[name] = measure(qrels, d / name)
        sizes = {name: (d / name).stat().st_size / 1e6 for name in bombs}
    base = results["valid"]
    print(f"{'file':<18}{'MB':>8}{'seconds':>9}{'peak MB':>9}{'memory x':>10}  outcome")
    for name in files:
        r = results[name]
        ratio = r["maxrss_mb"] / base["maxrss_mb"]
        cells = f"{len(valid) / 1e6:>8.1f}{r['seconds']:>9.2f}{r['maxrss_mb']:>9.0f}{ratio:>10.2f}"
        print(f"{name:<18}{cells}  {r['outcome']}")
    for name in bombs:
        r = results[name]
        print(
            f"{name:<18}{sizes[name]:>8.1f}{r['seconds']:>9.2f}{r['maxrss_mb']:>9.0f}{'':>10}  {r['outcome']}"
        )
    for name in bombs[1:]:
        ratio = results[name]["seconds"] / results["valid.gz"]["seconds"]
        print(f"{name} refusal time / valid gzip read time: {ratio:.2f}")


if __name__ == "__main__":
    main()
