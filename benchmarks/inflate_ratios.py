"""How many times real campaign files inflate when decompressed: the margin of the inflate ratio
limit (``riskeval.io.decoding.MAX_INFLATE_RATIO``).

    python benchmarks/inflate_ratios.py [DATA]      # DATA: ../shared/data by default

Every file under ``DATA`` (runs, qrels, per-topic tables, topics; a ``.gz`` file is decompressed
first) is compressed with gzip at levels 9 and 1, bzip2 at level 9 and xz at preset 9, and each
stream is decompressed 8 KiB at a time, as riskeval reads it.  For each format the table gives the
largest ratio of a whole file (text bytes / compressed bytes) and the largest ratio of the text so
far to the compressed bytes read so far once the text passes 1 MiB (what riskeval checks, past its
floor of 16 MiB), each with its file; ``own`` is the ``.gz`` files as distributed.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STEP = 2**13
FLOOR = 2**20
DECOMPRESSORS: dict[str, Callable[[], Any]] = {
    "own": lambda: zlib.decompressobj(31),
    "gzip -9": lambda: zlib.decompressobj(31),
    "gzip -1": lambda: zlib.decompressobj(31),
    "bzip2 -9": bz2.BZ2Decompressor,
    "xz -9": lzma.LZMADecompressor,
}
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip -9": lambda text: gzip.compress(text, 9),
    "gzip -1": lambda text: gzip.compress(text, 1),
    "bzip2 -9": lambda text: bz2.compress(text, 9),
    "xz -9": lambda text: lzma.compress(text, preset=9),
}


def ratios(packed: bytes, make: Callable[[], Any]) -> tuple[float, float]:
    """The whole stream's ratio, and the largest ratio of the text so far to the compressed bytes
    read so far once the text passes :data:`FLOOR` (0 when it never does)."""
    decompressor = make()
    read = text = 0
    largest = 0.0
    for start in range(0, len(packed), STEP):
        block = packed[start : start + STEP]
        read += len(block)
        while block:  # a stream of several members: a new decompressor for each
            text += len(decompressor.decompress(block))
            block = decompressor.unused_data if decompressor.eof else b""
            if block:
                decompressor = make()
        if text > FLOOR:
            largest = max(largest, text / read)
    return text / read, largest


def main() -> None:
    label = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
    data = ROOT / label
    best: dict[str, list[tuple[float, str]]] = {name: [(0.0, ""), (0.0, "")] for name in DECOMPRESSORS}
    files = 0
    for path in sorted(p for p in data.rglob("*") if p.is_file() and p.stat().st_size):
        raw = path.read_bytes()
        own = raw[:2] == b"\x1f\x8b"
        text = gzip.decompress(raw) if own else raw
        streams = {name: compress(text) for name, compress in COMPRESSORS.items()}
        if own:
            streams["own"] = raw
        name = str(path.relative_to(data))
        for kind, packed in streams.items():
            for i, ratio in enumerate(ratios(packed, DECOMPRESSORS[kind])):
                if ratio > best[kind][i][0]:
                    best[kind][i] = (ratio, name)
        files += 1
    print(f"{files} files under {label}")
    print(f"{'format':<10}{'whole file':>11}  {'file':<58}{'past 1 MiB':>11}  file")
    for kind, ((whole, whole_file), (running, running_file)) in best.items():
        print(f"{kind:<10}{whole:>11.1f}  {whole_file:<58}{running:>11.1f}  {running_file}")


if __name__ == "__main__":
    main()
