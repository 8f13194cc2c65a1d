#!/usr/bin/env python3
"""A generated barcode robustness corpus: random valid codes, rendered and degraded, with the expected text known.

From a seed, makes COUNT pictures spread evenly over the formats (EAN-13, EAN-8, UPC-A, UPC-E, Code 128, QR)
and the degradations (clean, blur, noise, JPEG artefacts, low resolution, perspective, rotation, uneven light,
glare, partial occlusion, a second code nearby, text nearby, and a mix of three), each code at a random module
width. Writes the pictures and OUT/manifest.jsonl, one JSON object a line:

  {"file": "00012-upcA-blur.png", "format": "upcA", "text": "036000291452", "degradation": "blur",
   "module": 2.5, "others": [{"format": "qr", "text": "..."}]}

`format` is Nestory's BarcodeFormat name; `text` is the code as encoded (12 digits for UPC-A, 8 for UPC-E);
`others` are the other codes really in the picture (a read of one of them is right, not wrong). The same seed
and count give the same pictures (with the same numpy, Pillow and qrcode versions).

Usage: barcode_corpus.py --out DIR [--count N] [--seed S] [--formats ean13,qr] [--degradations blur,noise]
"""
import argparse
import io
import json
import math
import os
import random
import sys

import numpy as np
import qrcode
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FORMATS = ["ean13", "ean8", "upcA", "upcE", "code128", "qr"]
DEGRADATIONS = ["clean", "blur", "noise", "jpeg", "lowres", "perspective", "rotation", "light", "glare",
                "occlusion", "second-code", "text", "mixed"]

FONT_PATHS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"]

# MARK: Codes

L_CODES = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
R_CODES = ["".join("1" if c == "0" else "0" for c in code) for code in L_CODES]
G_CODES = [code[::-1] for code in R_CODES]
EAN13_PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
# UPC-E parities for number system 0 by check digit (E even = G code, O odd = L code); number system 1 inverts.
UPCE_PARITY = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"]

CODE128_WIDTHS = [
    "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
    "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
    "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
    "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
    "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
    "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
    "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
    "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
    "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
    "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
    "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
]


def check_digit(body):
    """The GS1 check digit of the digits before it."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(body)))
    return str((10 - total % 10) % 10)


def upce_to_upca(upce):
    """The 12-digit UPC-A a UPC-E (number system, six digits, check) stands for."""
    ns, d = upce[0], upce[1:7]
    last = d[5]
    if last in "012":
        body = d[0:2] + last + "0000" + d[2:5]
    elif last == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif last == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + last
    return ns + body + upce[7]


def random_code(fmt, rng):
    if fmt == "ean13":
        body = "".join(rng.choice("0123456789") for _ in range(12))
        if body[0] == "0":  # a leading 0 is a UPC-A; keep EAN-13 a real 13-digit code
            body = str(rng.randint(1, 9)) + body[1:]
        return body + check_digit(body)
    if fmt == "upcA":
        body = "".join(rng.choice("0123456789") for _ in range(11))
        return body + check_digit(body)
    if fmt == "ean8":
        body = "".join(rng.choice("0123456789") for _ in range(7))
        return body + check_digit(body)
    if fmt == "upcE":
        ns = rng.choice("01")
        digits = "".join(rng.choice("0123456789") for _ in range(6))
        upca = upce_to_upca(ns + digits + "0")
        return ns + digits + check_digit(upca[:11])
    if fmt == "code128":
        kind = rng.random()
        length = rng.randint(4, 18)
        if kind < 0.3:
            alphabet = "0123456789"
        elif kind < 0.7:
            alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
        else:
            alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-./:+"
        return "".join(rng.choice(alphabet) for _ in range(length))
    if fmt == "qr":
        kind = rng.random()
        if kind < 0.4:
            path = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(4, 30)))
            return "https://example.org/" + path
        if kind < 0.6:
            return "".join(rng.choice("0123456789") for _ in range(rng.randint(6, 40)))
        words = ["lamp", "sofa", "drill", "kettle", "chair", "serial", "model", "Größe", "café", "box"]
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) + " " + str(rng.randint(1, 99999))
    raise ValueError(fmt)


def modules_1d(fmt, text):
    """The code's modules, '1' for a dark one."""
    if fmt in ("ean13", "upcA"):
        code = text if fmt == "ean13" else "0" + text
        parity = EAN13_PARITY[int(code[0])]
        bits = "101"
        for i, d in enumerate(code[1:7]):
            bits += (L_CODES if parity[i] == "L" else G_CODES)[int(d)]
        bits += "01010"
        for d in code[7:13]:
            bits += R_CODES[int(d)]
        return bits + "101"
    if fmt == "ean8":
        bits = "101" + "".join(L_CODES[int(d)] for d in text[:4]) + "01010"
        return bits + "".join(R_CODES[int(d)] for d in text[4:]) + "101"
    if fmt == "upcE":
        parity = UPCE_PARITY[int(text[7])]
        bits = "101"
        for i, d in enumerate(text[1:7]):
            even = (parity[i] == "E") != (text[0] == "1")
            bits += (G_CODES if even else L_CODES)[int(d)]
        return bits + "010101"
    if fmt == "code128":
        values = [ord(c) - 32 for c in text]
        checksum = 104 + sum((i + 1) * v for i, v in enumerate(values))
        bits = ""
        for symbol in [104] + values + [checksum % 103, 106]:
            for i, width in enumerate(CODE128_WIDTHS[symbol]):
                bits += ("1" if i % 2 == 0 else "0") * int(width)
        return bits
    raise ValueError(fmt)


def quiet_modules(fmt):
    return {"ean13": 11, "upcA": 9, "ean8": 7, "upcE": 9, "code128": 10}[fmt]


# MARK: Rendering

def font(size, rng):
    path = next((p for p in FONT_PATHS if os.path.exists(p)), None)
    return ImageFont.truetype(path, max(6, int(size))) if path else ImageFont.load_default()


def render_code(fmt, text, module, rng, ink, paper):
    """A label with the code (and, for 1D codes, often its digits under it), as a float array 0-255."""
    over = 8  # drawn at 8 pixels a module, then resampled: edges fall between pixels, as in a photo
    if fmt == "qr":
        level = rng.choice([qrcode.constants.ERROR_CORRECT_L, qrcode.constants.ERROR_CORRECT_M,
                            qrcode.constants.ERROR_CORRECT_Q, qrcode.constants.ERROR_CORRECT_H])
        qr = qrcode.QRCode(error_correction=level, box_size=1, border=4)
        qr.add_data(text.encode("utf-8"))
        qr.make(fit=True)
        matrix = np.array(qr.get_matrix(), dtype=bool)
        hi = np.kron(matrix, np.ones((over, over), dtype=bool))
        size = max(8, int(round(matrix.shape[0] * module)))
        image = Image.fromarray(np.where(hi, 0, 255).astype(np.uint8)).resize((size, size), Image.BOX)
        array = np.asarray(image, dtype=np.float32) / 255.0
        return paper + (ink - paper) * (1 - array)
    bits = modules_1d(fmt, text)
    quiet = quiet_modules(fmt)
    row = np.array([c == "1" for c in "0" * quiet + bits + "0" * quiet], dtype=bool)
    width = max(8, int(round(len(row) * module)))
    bar_height = max(10, int(width * rng.uniform(0.25, 0.7)))
    hi = np.repeat(row, over)[None, :]
    image = Image.fromarray(np.where(hi, 0, 255).astype(np.uint8)).resize((width, 1), Image.BOX)
    line = np.asarray(image, dtype=np.float32)[0] / 255.0
    top = int(quiet * module * 0.4)
    digits = rng.random() < 0.7
    text_height = int(module * 11) if digits else 0
    height = top + bar_height + text_height + int(module * 3)
    label = np.ones((height, width), dtype=np.float32)
    label[top:top + bar_height, :] = line[None, :]
    array = paper + (ink - paper) * (1 - label)
    if digits:
        pil = Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))
        draw = ImageDraw.Draw(pil)
        f = font(module * 9, rng)
        shown = text
        tw = draw.textlength(shown, font=f)
        draw.text(((width - tw) / 2, top + bar_height + module), shown, fill=int(ink), font=f)
        array = np.asarray(pil, dtype=np.float32)
    return array


def place(canvas, label, x, y):
    h, w = label.shape
    H, W = canvas.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(W, x + w), min(H, y + h)
    if x1 > x0 and y1 > y0:
        canvas[y0:y1, x0:x1] = label[y0 - y:y1 - y, x0 - x:x1 - x]


# MARK: Degradations

def to_image(array):
    return Image.fromarray(np.clip(array, 0, 255).astype(np.uint8))


def gaussian_blur(array, sigma):
    return np.asarray(to_image(array).filter(ImageFilter.GaussianBlur(sigma)), dtype=np.float32)


def add_noise(array, sigma, nrng):
    return array + nrng.normal(0, sigma, array.shape).astype(np.float32)


def jpeg_round_trip(array, quality):
    buffer = io.BytesIO()
    to_image(array).save(buffer, "JPEG", quality=int(quality))
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())), dtype=np.float32)


def low_resolution(array, module, rng):
    target = rng.uniform(0.9, 1.5)  # pixels a module afterwards
    scale = min(1.0, target / module)
    h, w = array.shape
    small = to_image(array).resize((max(8, int(w * scale)), max(8, int(h * scale))), Image.BOX)
    return np.asarray(small, dtype=np.float32)


def perspective(array, rng, paper, amount):
    h, w = array.shape
    jitter = lambda extent: rng.uniform(0, amount) * extent
    # Where each output corner samples the input: a quadrilateral inside the picture.
    quad = (jitter(w), jitter(h), jitter(w), h - jitter(h), w - jitter(w), h - jitter(h), w - jitter(w), jitter(h))
    out = to_image(array).transform((w, h), Image.QUAD, quad, resample=Image.BICUBIC, fillcolor=int(paper))
    return np.asarray(out, dtype=np.float32)


def rotate(array, rng, paper, limit=35):
    angle = rng.uniform(-limit, limit)
    if rng.random() < 0.2:
        angle += 180
    out = to_image(array).rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=int(paper))
    return np.asarray(out, dtype=np.float32)


def uneven_light(array, rng, strength):
    h, w = array.shape
    theta = rng.uniform(0, 2 * math.pi)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    t = (xs / max(1, w) - 0.5) * math.cos(theta) + (ys / max(1, h) - 0.5) * math.sin(theta)
    t = (t - t.min()) / max(1e-6, t.max() - t.min())
    gain = 1 - strength * t
    return array * gain


def glare(array, rng, box):
    h, w = array.shape
    x0, y0, bw, bh = box
    cx = x0 + rng.uniform(0.2, 0.8) * bw
    cy = y0 + rng.uniform(0.2, 0.8) * bh
    radius = rng.uniform(0.08, 0.25) * max(bw, bh)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = np.exp(-(((xs - cx) ** 2 + ((ys - cy) * rng.uniform(0.5, 2)) ** 2) / (2 * radius ** 2)))
    return array + rng.uniform(120, 255) * blob


def occlude(array, rng, box, fmt, ink):
    x0, y0, bw, bh = box
    shade = rng.choice([ink * 0.5 + 20, 235.0, 180.0])
    if fmt == "qr":
        ow, oh = int(bw * rng.uniform(0.1, 0.3)), int(bh * rng.uniform(0.1, 0.3))
    elif rng.random() < 0.5:
        # Across the bars' top or bottom: the rest of their height still reads.
        ow, oh = int(bw * rng.uniform(0.5, 1.1)), int(bh * rng.uniform(0.2, 0.5))
    else:
        # A finger or a sticker across some bars: usually unreadable; a reader must then say nothing.
        ow, oh = int(bw * rng.uniform(0.03, 0.12)), int(bh * rng.uniform(0.5, 1.2))
    ox = int(x0 + rng.uniform(-0.1, 1.0) * bw - ow / 2)
    oy = int(y0 + rng.uniform(-0.1, 1.0) * bh - oh / 2)
    out = array.copy()
    out[max(0, oy):max(0, oy + oh), max(0, ox):max(0, ox + ow)] = shade
    return out


def nearby_text(array, rng, box, ink):
    pil = to_image(array)
    draw = ImageDraw.Draw(pil)
    h, w = array.shape
    x0, y0, bw, bh = box
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if kind < 0.4:
            words = "".join(rng.choice("0123456789") for _ in range(rng.choice([8, 12, 13])))
        elif kind < 0.7:
            words = f"PRICE {rng.randint(1, 999)}.{rng.randint(0, 99):02d}"
        else:
            words = rng.choice(["SKU", "LOT", "Made in EU", "Best before", "REF"]) + " " + str(rng.randint(100, 99999999))
        f = font(rng.uniform(10, 28), rng)
        x = rng.uniform(0, max(1, w - 80))
        y = rng.choice([rng.uniform(0, max(1, y0 - 10)), rng.uniform(min(h - 10, y0 + bh), max(min(h - 10, y0 + bh) + 1, h - 20))])
        draw.text((x, y), words, fill=int(ink), font=f)
    return np.asarray(pil, dtype=np.float32)


# MARK: One picture

def make_picture(index, fmt, degradation, seed):
    rng = random.Random(f"{seed}-{index}")
    nrng = np.random.default_rng([seed, index])
    text = random_code(fmt, rng)
    module = rng.choice([1.5, 2, 2.5, 3, 4]) if fmt != "qr" else rng.choice([2, 3, 4, 6])
    ink = rng.uniform(0, 70)
    paper = rng.uniform(185, 255)
    label = render_code(fmt, text, module, rng, ink, paper)
    others = []
    lh, lw = label.shape
    W = int(lw * rng.uniform(1.3, 1.8)) + 40
    H = int(lh * rng.uniform(1.3, 1.8)) + 40
    second = None
    if degradation == "second-code":
        other_format = rng.choice(FORMATS)
        other_text = random_code(other_format, rng)
        while other_text == text:
            other_text = random_code(other_format, rng)
        other_module = rng.choice([1.5, 2, 3]) if other_format != "qr" else rng.choice([2, 3, 4])
        second = render_code(other_format, other_text, other_module, rng, ink, paper)
        others.append({"format": other_format, "text": other_text})
        sh, sw = second.shape
        if rng.random() < 0.5:
            W = max(W, lw + sw + 60)
            H = max(H, max(lh, sh) + 40)
        else:
            W = max(W, max(lw, sw) + 40)
            H = max(H, lh + sh + 60)
    canvas = np.full((H, W), paper, dtype=np.float32)
    if second is None:
        x, y = rng.randint(0, W - lw), rng.randint(0, H - lh)
        place(canvas, label, x, y)
    else:
        sh, sw = second.shape
        if W >= lw + sw + 60:
            x, y = 20, rng.randint(0, H - lh)
            place(canvas, label, x, y)
            place(canvas, second, x + lw + rng.randint(20, 40), rng.randint(0, H - sh))
        else:
            x, y = rng.randint(0, W - lw), 20
            place(canvas, label, x, y)
            place(canvas, second, rng.randint(0, W - sw), y + lh + rng.randint(20, 40))
    box = (x, y, lw, lh)

    def apply(kind, array, strength):
        if kind == "blur":
            return gaussian_blur(array, module * rng.uniform(0.2, 0.2 + 0.7 * strength))
        if kind == "noise":
            return add_noise(array, rng.uniform(8, 8 + 40 * strength), nrng)
        if kind == "lowres":
            return low_resolution(array, module, rng)
        if kind == "perspective":
            return perspective(array, rng, paper, 0.05 + 0.2 * strength)
        if kind == "rotation":
            return rotate(array, rng, paper, 10 + 30 * strength)
        if kind == "light":
            return uneven_light(array, rng, rng.uniform(0.3, 0.3 + 0.5 * strength))
        if kind == "glare":
            return glare(array, rng, box)
        if kind == "occlusion":
            return occlude(array, rng, box, fmt, ink)
        if kind == "text":
            return nearby_text(array, rng, box, ink)
        return array

    quality = None
    if degradation == "mixed":
        kinds = rng.sample(["blur", "noise", "perspective", "rotation", "light", "glare", "text"], 3)
        # Geometry first, then light, then the camera's blur and noise, as in a photo.
        order = ["text", "perspective", "rotation", "light", "glare", "blur", "noise"]
        for kind in sorted(kinds, key=order.index):
            canvas = apply(kind, canvas, 0.5)
        quality = rng.randint(50, 90)
    elif degradation == "jpeg":
        quality = rng.randint(5, 30)
    elif degradation not in ("clean", "second-code"):
        canvas = apply(degradation, canvas, 1.0)
    # A camera's sensor adds a little noise to every picture.
    if degradation not in ("clean", "noise"):
        canvas = add_noise(canvas, 2, nrng)
    image = to_image(canvas)
    return image, text, module, others, quality


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=1300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--degradations", default=",".join(DEGRADATIONS))
    args = parser.parse_args()
    formats = args.formats.split(",")
    degradations = args.degradations.split(",")
    for name in formats:
        if name not in FORMATS:
            sys.exit(f"unknown format {name}; known: {', '.join(FORMATS)}")
    for name in degradations:
        if name not in DEGRADATIONS:
            sys.exit(f"unknown degradation {name}; known: {', '.join(DEGRADATIONS)}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "manifest.jsonl.partial"), "w", encoding="utf-8") as manifest:
        for index in range(args.count):
            # Every format meets every degradation: formats cycle fastest, degradations shift each round.
            fmt = formats[index % len(formats)]
            degradation = degradations[(index // len(formats) + index) % len(degradations)]
            image, text, module, others, quality = make_picture(index, fmt, degradation, args.seed)
            name = f"{index:05d}-{fmt}-{degradation}" + (".jpg" if quality else ".png")
            path = os.path.join(args.out, name)
            if quality:
                image.save(path, "JPEG", quality=quality)
            else:
                image.save(path, "PNG", compress_level=1)
            manifest.write(json.dumps({"file": name, "format": fmt, "text": text, "degradation": degradation,
                                       "module": module, "others": others}, ensure_ascii=False) + "\n")
    os.replace(os.path.join(args.out, "manifest.jsonl.partial"), os.path.join(args.out, "manifest.jsonl"))


if __name__ == "__main__":
    main()
