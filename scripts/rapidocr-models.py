#!/usr/bin/env python3
"""Writes RapidOCR's three models (text detection, angle, recognition) with the same arithmetic in fewer steps
(issue 22: the cost of reading a receipt).

    VENV/bin/python scripts/rapidocr-models.py VENV/nestory-models   (needs `onnx` in that venv)

The models in the rapidocr-onnxruntime wheel were converted from PaddlePaddle one operation at a time: after
nearly every convolution comes a learned scale and shift (`x * s + t`), then hard-swish spelled out as four
operations (`x * clip(x + 3, 0, 6) / 6`), then another learned scale and shift. ONNX Runtime fuses none of that,
so each is a pass over the whole feature map, and each breaks its blocked (NCHWc) convolutions into reorders.
Here, all in float32, with every weight kept:

1. a convolution's scale and shift go into its weights and bias: `conv(x) * s + t` = `conv'(x)`, W' = s W,
   b' = s b + t;
2. the four operations become ONNX's HardSwish (opset 14; the rest of the graph converted by onnx's own
   version converter), which ONNX Runtime then fuses into the convolution before it;
3. the scale and shift before a convolution: the scale goes into its weights (`conv(a x)` = `conv_aW(x)`, padding
   included, as a zero stays zero); the shift into its bias when it has no padding (`conv(x + c)` adds c times
   the sum of each filter's weights everywhere), and otherwise stays as one addition, `a x + b` = `a (x + b/a)`,
   written as a 1×1 depthwise convolution (weights 1, bias b/a: the same sums) so that ONNX Runtime keeps the
   tensor in its blocked layout between the two convolutions instead of converting it out and back for an `Add`.

Every rewritten model is run beside the original on fixed inputs before it is written; one whose outputs differ by
more than 1e-3, or in what they decide (the recognised character, the angle, a pixel's text/no-text at
detection's threshold), is not written, and the worker keeps the packaged one. Nothing else changes: the same
models, the same decoding, the same thresholds. The worker (`RapidOCRRecognizer`) uses this folder's models
when all three and the manifest are there; the manifest is written last, and removed before a rewrite (run again,
this script rewrites only when the manifest's version is not `VERSION` or its digests are not the packaged models').
"""
import hashlib
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper, version_converter

VERSION = 2
MODELS = {  # name in the folder -> file in the wheel's models folder, fixed inputs' shape
    "det.onnx": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 320, 448)),
    "cls.onnx": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (6, 3, 48, 192)),
    "rec.onnx": ("ch_PP-OCRv4_rec_infer.onnx", (6, 3, 48, 320)),
}


class Graph:
    """The model's nodes as one Python list (so a node keeps its identity while the list is edited) and its
    constants (initializers and Constant nodes) as arrays."""

    def __init__(self, model):
        self.model = model
        graph = model.graph
        self.nodes = list(graph.node)
        self.outputs = {o.name for o in graph.output}
        self.constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        for node in self.nodes:
            if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
                self.constants[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        self.added = []

    def scalar(self, name):
        value = self.constants.get(name)
        return None if value is None or value.size != 1 else float(value.reshape(-1)[0])

    def only_consumer(self, name):
        """The one node that reads `name`, or None if none, several, or the graph's output reads it."""
        if name in self.outputs:
            return None
        readers = [n for n in self.nodes if name in n.input]
        return readers[0] if len(readers) == 1 else None

    def constant(self, array, base):
        name = f"nestory_{base}_{len(self.added)}"
        array = np.asarray(array, np.float32)
        self.added.append(numpy_helper.from_array(array, name))
        self.constants[name] = array
        return name

    def remove(self, gone):
        ids = {id(n) for n in gone}
        self.nodes = [n for n in self.nodes if id(n) not in ids]

    def set_weights(self, conv, weights, bias):
        conv.input[1] = self.constant(weights, "w")
        if len(conv.input) > 2:
            conv.input[2] = self.constant(bias, "b")
        else:
            conv.input.append(self.constant(bias, "b"))

    def conv_parameters(self, conv):
        weights = self.constants[conv.input[1]]
        bias = self.constants[conv.input[2]] if len(conv.input) > 2 else np.zeros(weights.shape[0], np.float32)
        return weights, bias

    def finish(self):
        graph = self.model.graph
        used = {i for n in self.nodes for i in n.input} | self.outputs
        kept = [n for n in self.nodes if not (n.op_type == "Constant" and n.output[0] not in used)]
        copies = [onnx.NodeProto.FromString(n.SerializeToString()) for n in kept]
        del graph.node[:]
        graph.node.extend(copies)
        graph.initializer.extend(self.added)
        initializers = [i for i in graph.initializer if i.name in used]
        del graph.initializer[:]
        graph.initializer.extend(initializers)
        return self.model


def other_input(node, name):
    rest = [i for i in node.input if i != name]
    return rest[0] if len(rest) == 1 else None


def fold_scale_after_conv(g):
    count = 0
    for conv in list(g.nodes):
        if conv.op_type != "Conv" or conv.input[1] not in g.constants:
            continue
        mul = g.only_consumer(conv.output[0])
        if mul is None or mul.op_type != "Mul":
            continue
        scale = g.scalar(other_input(mul, conv.output[0]))
        if scale is None:
            continue
        weights, bias = g.conv_parameters(conv)
        weights, bias = weights * np.float32(scale), bias * np.float32(scale)
        last, gone = mul, [mul]
        add = g.only_consumer(mul.output[0])
        shift = g.scalar(other_input(add, mul.output[0])) if add is not None and add.op_type == "Add" else None
        if shift is not None:
            bias = bias + np.float32(shift)
            last = add
            gone.append(add)
        g.set_weights(conv, weights, bias)
        conv.output[0] = last.output[0]
        g.remove(gone)
        count += 1
    return count


def hard_swish(g):
    count = 0
    for add in list(g.nodes):
        if add.op_type != "Add":
            continue
        for x in list(add.input):
            if g.scalar(other_input(add, x)) != 3.0:
                continue
            clip = g.only_consumer(add.output[0])
            if clip is None or clip.op_type != "Clip" or len(clip.input) != 3:
                continue
            if g.scalar(clip.input[1]) != 0.0 or g.scalar(clip.input[2]) != 6.0:
                continue
            mul = g.only_consumer(clip.output[0])
            if mul is None or mul.op_type != "Mul" or sorted(mul.input) != sorted([x, clip.output[0]]):
                continue
            div = g.only_consumer(mul.output[0])
            if div is None or div.op_type != "Div" or div.input[0] != mul.output[0] or g.scalar(div.input[1]) != 6.0:
                continue
            node = helper.make_node("HardSwish", [x], [div.output[0]], name=f"nestory_hardswish_{count}")
            g.nodes.insert(next(i for i, n in enumerate(g.nodes) if n is add), node)
            g.remove([add, clip, mul, div])
            count += 1
            break
    return count


def fold_scale_before_conv(g):
    folded = kept = 0
    for mul in list(g.nodes):
        if mul.op_type != "Mul":
            continue
        sources = [i for i in mul.input if g.scalar(i) is None]
        if len(sources) != 1:
            continue
        source = sources[0]
        scale = g.scalar(other_input(mul, source))
        add = g.only_consumer(mul.output[0])
        if not scale or add is None or add.op_type != "Add":
            continue
        shift = g.scalar(other_input(add, mul.output[0]))
        conv = g.only_consumer(add.output[0])
        if shift is None or conv is None or conv.op_type != "Conv" or conv.input[0] != add.output[0]:
            continue
        if conv.input[1] not in g.constants:
            continue
        pads = [list(a.ints) for a in conv.attribute if a.name == "pads"]
        auto_pad = [a for a in conv.attribute if a.name == "auto_pad" and a.s not in (b"", b"NOTSET")]
        weights, bias = g.conv_parameters(conv)
        if not auto_pad and all(p == 0 for p in (pads[0] if pads else [])):
            bias = bias + np.float32(shift) * weights.sum(axis=(1, 2, 3), dtype=np.float64).astype(np.float32)
            conv.input[0] = source
            g.remove([mul, add])
            folded += 1
        else:
            group = next((a.i for a in conv.attribute if a.name == "group"), 1)
            channels = weights.shape[1] * group
            shifting = helper.make_node("Conv", [source, g.constant(np.ones((channels, 1, 1, 1)), "one"),
                                                 g.constant(np.full(channels, shift / scale), "shift")],
                                        [add.output[0]], kernel_shape=[1, 1], group=channels, name=f"nestory_shift_{kept}")
            g.nodes[next(i for i, n in enumerate(g.nodes) if n is add)] = shifting
            g.remove([mul])
            kept += 1
        g.set_weights(conv, weights * np.float32(scale), bias)
    return folded, kept


def rewrite(model):
    model = version_converter.convert_version(model, 14)
    g = Graph(model)
    after = fold_scale_after_conv(g)
    swish = hard_swish(g)
    folded, kept = fold_scale_before_conv(g)
    model = g.finish()
    onnx.checker.check_model(model)
    return model, {"scale after conv": after, "hard-swish": swish, "scale before conv, folded": folded,
                   "scale before conv, shift left as a 1x1 conv": kept}


def decisions(name, output):
    if name == "det.onnx":
        return output > 0.3  # DBPostProcess's threshold in RapidOCR's config
    return output.argmax(axis=-1)


def compare(name, original, rewritten, shape):
    """Largest difference of the two models' outputs on fixed inputs (a seeded random batch, and a batch of black and
    white stripes, edges like print's), and how many decisions differ."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sessions = [ort.InferenceSession(m, options, providers=["CPUExecutionProvider"]) for m in (original, rewritten)]
    rng = np.random.default_rng(22)
    inputs = [rng.uniform(-1, 1, shape).astype(np.float32)]
    ys, xs = np.mgrid[0:shape[2], 0:shape[3]]
    stripes = np.sign(np.sin(xs / 3.0) * np.sin(ys / 5.0)).astype(np.float32)
    inputs.append(np.broadcast_to(stripes, shape).astype(np.float32).copy())
    largest, differing = 0.0, 0
    for tensor in inputs:
        feed = {sessions[0].get_inputs()[0].name: tensor}
        a, b = (s.run(None, feed)[0] for s in sessions)
        largest = max(largest, float(np.abs(a - b).max()))
        differing += int((decisions(name, a) != decisions(name, b)).sum())
    return largest, differing


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    manifest_path = os.path.join(folder, "manifest.json")
    import rapidocr_onnxruntime
    packaged = os.path.join(os.path.dirname(rapidocr_onnxruntime.__file__), "models")
    digests = {}
    for name, (source, _) in MODELS.items():
        with open(os.path.join(packaged, source), "rb") as f:
            digests[name] = hashlib.sha256(f.read()).hexdigest()
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
        # Current: this version of the rewrite, of the models the installed package ships.
        if manifest.get("version") == VERSION and all(
                os.path.exists(os.path.join(folder, n)) and manifest["models"][n]["sha256"] == digests[n] for n in MODELS):
            return
    except (OSError, ValueError, KeyError, TypeError):
        pass
    os.makedirs(folder, exist_ok=True)
    if os.path.exists(manifest_path):
        os.remove(manifest_path)  # the worker reads the folder only while a manifest is there
    manifest = {"version": VERSION, "models": {}}
    for name, (source, shape) in MODELS.items():
        original = os.path.join(packaged, source)
        model, counts = rewrite(onnx.load(original))
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".onnx")
        os.close(handle)
        try:
            onnx.save(model, temporary)
            largest, differing = compare(name, original, temporary, shape)
            if largest > 1e-3 or differing:
                print(f"{name}: not written, its outputs differ from {source} by up to {largest:.1e} "
                      f"({differing} decisions differ)", file=sys.stderr)
                sys.exit(1)
            os.chmod(temporary, 0o644)
            os.replace(temporary, os.path.join(folder, name))
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)
        manifest["models"][name] = {"from": source, "sha256": digests[name], "rewrites": counts, "largest difference": largest}
        print(f"{name}: from {source}, {counts}, outputs within {largest:.1e} of the original's")
    with open(manifest_path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=2)
    os.replace(manifest_path + ".tmp", manifest_path)


if __name__ == "__main__":
    main()
