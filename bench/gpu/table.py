#!/usr/bin/env python3
"""Turns bench_gpu's and peers.py's JSON lines into a Markdown table with gpuc's ratio to the
best peer of each workload. Usage: table.py results.jsonl > table.md"""
import collections
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(dict)
for r in rows:
    by[r["workload"]][r["impl"]] = r
variants = sorted({r["impl"] for r in rows if r["impl"].startswith("gpuc") and r["impl"] != "gpuc"})
impls = ["gpuc"] + variants + ["cupy", "cupy.fuse", "jax.jit", "torch", "torch.compile"]
impls = [i for i in impls if any(r["impl"] == i for r in rows)]
impls += sorted({r["impl"] for r in rows} - set(impls))  # other references (cupy.hand_fused)
print("| workload | " + " | ".join(impls) + " | gpuc / best peer |")
print("|---" * (len(impls) + 2) + "|")
for w, cells in by.items():
    if w == "error":
        continue
    unit = "gbps" if any("gbps" in c for c in cells.values()) else "us" if any(
        "us" in c for c in cells.values()) else "ms"
    def val(c):
        return c.get(unit)
    out = []
    for i in impls:
        c = cells.get(i)
        out.append("—" if not c or val(c) is None else f"{val(c):.4g}")
    peers = [val(c) for i, c in cells.items()
             if not i.startswith("gpuc") and val(c) is not None]
    ratio = ""
    if "gpuc" in cells and peers and val(cells["gpuc"]):
        g = val(cells["gpuc"])
        ratio = f"{g / max(peers):.2f}x" if unit == "gbps" else f"{min(peers) / g:.2f}x"
    print(f"| {w} ({'GB/s' if unit == 'gbps' else unit}) | " + " | ".join(out) + f" | {ratio} |")
for r in rows:
    if r["workload"] == "error":
        print(f"\n{r['impl']}: {r['message']}")
