#!/usr/bin/env python3
"""Compares RapidOCR settings on the same receipts, alternated in one run (issue 22: the cost of reading).

    .venv-ocr/bin/python scripts/rapidocr-options.py DATA_DIR OUT_DIR [--limit 40] [--part working|held-out|all]
                                                     [--configs name,name,...]

Each configuration below runs in its own long-lived worker process (as the server's RapidOCR worker does); the
receipts are sent one at a time to every worker in turn, in an order that rotates per receipt, so the machine's
load falls on all of them alike. Prints, per configuration, p50 / p95 / mean seconds per receipt (the worker's own
time for one image, decoding included) and the worker's peak memory (VmHWM), and writes what each read to
OUT_DIR/NAME/rapidocr/RECEIPT.json in the bench's cache layout, so
`nestory-receipts-bench DATA_DIR --engine rapidocr --cache OUT_DIR/NAME ...` scores its accuracy without reading again.

The receipts are chosen as the bench's `--part` chooses them (the store's first word hashed, a quarter held out).
"""
import argparse
import base64
import json
import os
import re
import subprocess
import sys
import time

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"

REC_ARENA = {"rec:enable_cpu_mem_arena": True, "cls:enable_cpu_mem_arena": True}

# name -> (RapidOCR keyword arguments, onnxruntime SessionOptions attributes[, environment of the worker])
CONFIGS = {
    "base": ({}, {}),
    "arena-on": ({}, {"enable_cpu_mem_arena": True}),
    "malloc-mmap-16m": ({}, {}, {"MALLOC_MMAP_THRESHOLD_": "16777216"}),
    "malloc-mmap-4m": ({}, {}, {"MALLOC_MMAP_THRESHOLD_": "4194304"}),
    "malloc-mmap-4m-det-max-1280": ({"det_limit_type": "max", "det_limit_side_len": 1280}, {}, {"MALLOC_MMAP_THRESHOLD_": "4194304"}),
    "det-max-960": ({"det_limit_type": "max", "det_limit_side_len": 960}, {}),
    "det-max-1280": ({"det_limit_type": "max", "det_limit_side_len": 1280}, {}),
    "det-max-1600": ({"det_limit_type": "max", "det_limit_side_len": 1600}, {}),
    "det-min-640": ({"det_limit_side_len": 640}, {}),
    "no-cls": ({"use_cls": False}, {}),
    "rec-batch-1": ({"rec_batch_num": 1}, {}),
    "rec-batch-16": ({"rec_batch_num": 16}, {}),
    "threads-2": ({"intra_op_num_threads": 2}, {}),
    "no-mem-pattern": ({}, {"enable_mem_pattern": False}),
    "opt-basic": ({}, {"graph_optimization_level": "ORT_ENABLE_BASIC"}),
    "sequential": ({}, {"execution_mode": "ORT_SEQUENTIAL"}),
    # Allocators (issue 22's second round): glibc's arenas, giving the heap back after each receipt, or another
    # malloc preloaded into the worker (Debian's libjemalloc2 and libtcmalloc-minimal4).
    "malloc-arena-max-1": ({}, {}, {"MALLOC_ARENA_MAX": "1"}),
    "malloc-arena-max-2": ({}, {}, {"MALLOC_ARENA_MAX": "2"}),
    "trim": ({}, {}, {"NESTORY_TRIM": "1"}),
    "arena-on-trim": ({}, {"enable_cpu_mem_arena": True}, {"NESTORY_TRIM": "1"}),
    "jemalloc": ({}, {}, {"LD_PRELOAD": JEMALLOC}),
    "jemalloc-arena-on": ({}, {"enable_cpu_mem_arena": True}, {"LD_PRELOAD": JEMALLOC}),
    "tcmalloc": ({}, {}, {"LD_PRELOAD": TCMALLOC}),
    "tcmalloc-arena-on": ({}, {"enable_cpu_mem_arena": True}, {"LD_PRELOAD": TCMALLOC}),
    # Detection's large tensors (one run per receipt) mmapped and given back at once; recognition's and the angle
    # classifier's many small runs served from ONNX Runtime's arena, so they do not fault fresh pages every batch.
    "mmap-1m-rec-arena": ({}, REC_ARENA, {"MALLOC_MMAP_THRESHOLD_": "1048576"}),
    "mmap-4m-rec-arena": ({}, REC_ARENA, {"MALLOC_MMAP_THRESHOLD_": "4194304"}),
    "mmap-1m-rec-arena-trim": ({}, REC_ARENA, {"MALLOC_MMAP_THRESHOLD_": "1048576", "NESTORY_TRIM": "1"}),
    "rec-arena-trim": ({}, REC_ARENA, {"NESTORY_TRIM": "1"}),
    # Detection in strips of at most 600,000 pixels with 96 rows of overlap (NESTORY_DET_STRIP=BUDGET,OVERLAP).
    "strip-600k": ({}, {}, {"NESTORY_DET_STRIP": "600000,96"}),
    "strip-600k-tcmalloc": ({}, {}, {"NESTORY_DET_STRIP": "600000,96", "LD_PRELOAD": TCMALLOC}),
    "strip-600k-64-tcmalloc": ({}, {}, {"NESTORY_DET_STRIP": "600000,64", "LD_PRELOAD": TCMALLOC}),
    "strip-600k-128-tcmalloc": ({}, {}, {"NESTORY_DET_STRIP": "600000,128", "LD_PRELOAD": TCMALLOC}),
    "strip-1m-tcmalloc": ({}, {}, {"NESTORY_DET_STRIP": "1000000,96", "LD_PRELOAD": TCMALLOC}),
    # The server's worker (two cores, one worker): two threads, strips of 600,000 pixels with 128 rows of overlap,
    # tcmalloc; with the packaged models and with scripts/rapidocr-models.py's (the venv's nestory-models folder).
    "server-packaged": ({"intra_op_num_threads": 2}, {}, {"NESTORY_DET_STRIP": "600000,128", "LD_PRELOAD": TCMALLOC}),
    "server-rewritten": ({"intra_op_num_threads": 2, "rewritten": True}, {},
                         {"NESTORY_DET_STRIP": "600000,128", "LD_PRELOAD": TCMALLOC}),
}

WORKER = r'''
import sys, json, base64, time, os, ctypes
import numpy as np, cv2
import onnxruntime
from rapidocr_onnxruntime import RapidOCR
from rapidocr_onnxruntime.utils import infer_engine
config = json.loads(sys.argv[1])
kwargs = {"intra_op_num_threads": 1, "inter_op_num_threads": 1}
kwargs.update(config["kwargs"])
if kwargs.pop("rewritten", False):
    folder = os.path.join(sys.prefix, "nestory-models")
    kwargs.update({n + "_model_path": os.path.join(folder, n + ".onnx") for n in ("det", "cls", "rec")})
session = config["session"]
if session:
    original = infer_engine.OrtInferSession._init_sess_opts
    def patched(cfg):
        options = original(cfg)
        # "KEY" applies to every model's session, "det:KEY" / "cls:KEY" / "rec:KEY" to that model's only.
        name = os.path.basename(str(cfg.get("model_path")))
        model = "det" if "det" in name else "cls" if "cls" in name else "rec"
        for key, value in session.items():
            prefix, _, bare = key.rpartition(":")
            if prefix and prefix != model: continue
            key = bare
            if key == "graph_optimization_level": value = getattr(onnxruntime.GraphOptimizationLevel, value)
            if key == "execution_mode": value = getattr(onnxruntime.ExecutionMode, value)
            setattr(options, key, value)
        return options
    infer_engine.OrtInferSession._init_sess_opts = staticmethod(patched)
engine = RapidOCR(**kwargs)

class StripDetector:
    """Detection in horizontal strips of at most `budget` pixels each (`overlap` rows above and below a strip's core
    are read too and their predictions dropped), so its memory is bounded by the budget, not the receipt's length.
    The same as the server's worker (Sources/NestoryOCR/RapidOCRRecognizer.swift)."""
    def __init__(self, detector, budget, overlap):
        self.detector, self.budget, self.overlap = detector, budget, overlap
    def __call__(self, img):
        d = self.detector
        start = time.perf_counter()
        pre = d.get_preprocess(max(img.shape[0], img.shape[1]))
        resized = pre.resize(img)
        if resized is None: return None, 0
        height, width = resized.shape[:2]
        window = max(2 * self.overlap + 64, self.budget // width // 32 * 32)
        core = window - 2 * self.overlap
        preds = np.empty((1, 1, height, width), np.float32)
        top = 0
        while top < height:
            if height <= window:
                a, b, bottom = 0, height, height
            else:
                bottom = min(height, top + core)
                a, b = max(0, top - self.overlap), min(height, bottom + self.overlap)
            tensor = np.expand_dims(pre.permute(pre.normalize(resized[a:b])), axis=0).astype(np.float32)
            preds[:, :, top:bottom, :] = d.infer(tensor)[0][:, :, top - a:bottom - a, :]
            top = bottom
        del resized
        boxes, _ = d.postprocess_op(preds, img.shape[:2])
        return d.filter_tag_det_res(boxes, img.shape[:2]), time.perf_counter() - start

if os.environ.get("NESTORY_DET_STRIP"):
    budget, overlap = (int(v) for v in os.environ["NESTORY_DET_STRIP"].split(","))
    engine.text_det = StripDetector(engine.text_det, budget, overlap)
trim = ctypes.CDLL("libc.so.6").malloc_trim if os.environ.get("NESTORY_TRIM") else None
print(json.dumps({"ready": True}), flush=True)
for request in sys.stdin:
    started = time.perf_counter()
    data = base64.b64decode(json.loads(request)["image"])
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    result, _ = engine(image)
    lines = []
    for box, text, score in (result or []):
        xs = [p[0] for p in box]; ys = [p[1] for p in box]
        lines.append({"text": text, "confidence": float(score), "words": [],
                      "box": {"x": int(min(xs)), "y": int(min(ys)),
                              "width": int(max(xs) - min(xs)), "height": int(max(ys) - min(ys))}})
    mean = sum(l["confidence"] for l in lines) / len(lines) if lines else 0.0
    if trim: trim(0)
    print(json.dumps({"lines": lines, "confidence": mean, "imageWidth": int(image.shape[1]),
                      "imageHeight": int(image.shape[0]), "seconds": time.perf_counter() - started}), flush=True)
'''


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def part_of(vendor):
    """The bench's split: the first word of the store's name (letters and digits, upper case), FNV-1a 64 hashed;
    a remainder of 1 modulo 4 is held out."""
    words = re.findall(r"[A-Z0-9]+", (vendor or "").upper())
    return "held-out" if fnv1a64(words[0] if words else "") % 4 == 1 else "working"


def peak_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def percentile(values, p):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(-(-p * len(ordered) // 1)) - 1))
    return ordered[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("out")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--part", default="working", choices=["working", "held-out", "all"])
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--extra", action="append", default=[],
                        help="NAME=JSON: another configuration, {\"kwargs\": {...}, \"session\": {...}, \"env\": {...}}")
    args = parser.parse_args()
    configs = {name: (CONFIGS[name] + ({},))[:3] for name in args.configs.split(",") if name}
    for extra in args.extra:
        name, _, text = extra.partition("=")
        spec = json.loads(text)
        configs[name] = (spec.get("kwargs", {}), spec.get("session", {}), spec.get("env", {}))

    names = []
    for file in sorted(os.listdir(args.data)):
        if not file.endswith(".json"):
            continue
        with open(os.path.join(args.data, file)) as handle:
            vendor = json.load(handle).get("vendor")
        if args.part == "all" or part_of(vendor) == args.part:
            names.append(file[:-5])
    names = names[: args.limit]

    workers = {}
    for name, (kwargs, session, env) in configs.items():
        process = subprocess.Popen([sys.executable, "-u", "-c", WORKER, json.dumps({"kwargs": kwargs, "session": session})],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   env={**os.environ, "OMP_NUM_THREADS": "1", **env})
        assert json.loads(process.stdout.readline()).get("ready"), name
        workers[name] = process
        os.makedirs(os.path.join(args.out, name, "rapidocr"), exist_ok=True)

    times = {name: [] for name in workers}
    order = list(workers)
    loads = []
    for index, receipt in enumerate(names):
        with open(os.path.join(args.data, receipt + ".jpg"), "rb") as handle:
            request = json.dumps({"image": base64.b64encode(handle.read()).decode()}) + "\n"
        rotated = order[index % len(order):] + order[: index % len(order)]
        for name in rotated:
            process = workers[name]
            process.stdin.write(request)
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            times[name].append(answer.pop("seconds"))
            with open(os.path.join(args.out, name, "rapidocr", receipt + ".json"), "w") as handle:
                json.dump(answer, handle)
        loads.append(os.getloadavg()[0])
        print(f"  {index + 1}/{len(names)} receipts", file=sys.stderr, flush=True)

    print(f"{len(names)} receipts ({args.part}), load average during the run {min(loads):.1f}–{max(loads):.1f}")
    print("| configuration | p50 s | p95 s | mean s | peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for name, process in workers.items():
        peak = peak_mib(process.pid)
        process.stdin.close()
        process.wait()
        values = times[name]
        print(f"| {name} | {percentile(values, 0.5):.2f} | {percentile(values, 0.95):.2f} | {sum(values) / len(values):.2f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
