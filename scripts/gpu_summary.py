#!/usr/bin/env python3
"""Summarises the JSON written by scripts/gpu_check.sh into the tables of docs/BENCHMARKS.md."""
import glob, json, os, statistics, sys

out = sys.argv[1]

def load_json_array(path):
    text = open(path).read()
    return json.loads(text[text.index('['):]) if '[' in text else []

print("\n| example | NVRTC compile (s) | registers | status | median (ms) | GB/s | % of copy BW |")
print("|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(out, "bench_*.json"))):
    name = os.path.basename(path)[6:-5]
    try:
        r = load_json_array(path)[0]
    except Exception as e:  # a failed bench leaves its reason in the .err file
        print(f"| {name} | - | - | error: {open(path[:-5] + '.err').read().strip()[-80:]} | | | |")
        continue
    c = r.get("compile", {})
    bw = r.get("copy_gbps", 0) or 0
    frac = f"{100 * r.get('gbps', 0) / bw:.0f}%" if bw else "-"
    print(f"| {name} | {c.get('seconds', 0):.3f} | {c.get('registers')} | {r['status']} | "
          f"{r.get('median_ms', 0):.4f} | {r.get('gbps', 0):.0f} | {frac} |")

def concatenated_json(path):
    """Values of a file holding several JSON documents one after another."""
    text, decoder, values, position = open(path).read(), json.JSONDecoder(), [], 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return values
        value, position = decoder.raw_decode(text, position)
        values.append(value)

medians = [run[0]["median_ms"] for run in concatenated_json(os.path.join(out, "repeat.jsonl"))]
if medians:
    m = statistics.median(medians)
    print(f"\nrepeat medians (ms): {', '.join(f'{x:.4f}' for x in medians)}; "
          f"spread (max-min)/median = {100 * (max(medians) - min(medians)) / m:.2f}%")

