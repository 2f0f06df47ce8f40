"""The memory plan: never two live tensors on one byte, except an output over an input
that dies at its op at a gap the kernel's element order makes safe; every shared model
within its RAM target."""

from __future__ import annotations

import numpy as np
import pytest
from harness import REPO, compile_model
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import MODELS, model_paths
from tinyaot import inplace, planner
from tinyaot.compiler import Options
from tinyaot.compiler import compile_model as compile_ir


def violations(p: planner.Plan) -> list[str]:
    """An independent checker: written from the rules, not from the planner's code."""
    bad = []
    bufs = list(p.buffers.values())
    for b in bufs:
        off = p.offsets[b.key]
        if off < 0 or off % planner.TENSOR_ALIGNMENT or off + b.size > p.size:
            bad.append(f"{b.key} outside or misaligned")
    for i, a in enumerate(bufs):
        for b in bufs[i + 1 :]:
            if a.end < b.start or b.end < a.start:
                continue
            oa, ob = p.offsets[a.key], p.offsets[b.key]
            if oa + a.size <= ob or ob + b.size <= oa:
                continue
            rule = p.overlaps.get((min(a.key, b.key), max(a.key, b.key)))
            if rule is None:
                bad.append(f"{a.key} and {b.key} overlap")
                continue
            out, inp = p.offsets[rule.out], p.offsets[rule.inp]
            if (inp - out) % rule.modulus:
                bad.append(f"{rule.out} over {rule.inp} not a multiple of {rule.modulus} apart")
            ok = inp - out >= rule.forward or (
                rule.reverse is not None and out - inp >= rule.reverse
            )
            if not ok:
                bad.append(f"{rule.out} over {rule.inp} closer than the gap")
    return bad


@st.composite
def graphs(draw):
    """Random schedules: buffers with lifetimes, some outputs allowed over dying inputs."""
    n = draw(st.integers(1, 14))
    buffers, rules = [], []
    for key in range(n):
        start = draw(st.integers(-1, 10))
        end = draw(st.integers(start, 12))
        buffers.append(planner.Buffer(key, draw(st.integers(1, 300)), start, end))
    for out in buffers:
        for inp in buffers:
            if inp.end == out.start and inp.key != out.key and draw(st.booleans()):
                forward = draw(st.integers(-300, 300))
                reverse = draw(st.one_of(st.none(), st.integers(-300, 300)))
                modulus = draw(st.sampled_from([1, 1, 3, 8, 20]))
                rules.append(planner.Overlap(out.key, inp.key, forward, reverse, modulus))
                break
    return buffers, rules


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_plan_never_overlaps_live_tensors(graph):
    buffers, rules = graph
    p = planner.plan(buffers, rules)
    assert violations(p) == []
    assert planner.check(p) == []
    assert p.size >= max(b.size for b in buffers)


def simulate(rmin_sets, n_in, es_in, es_out, out_off, in_off, reverse) -> bool:
    """Run a kernel's element order on a byte map: does any read see a clobbered byte?"""
    size = max(out_off + len(rmin_sets) * es_out, in_off + n_in * es_in) + 1
    mem = np.full(size, -1, dtype=np.int64)
    for i in range(n_in):
        mem[in_off + i * es_in : in_off + (i + 1) * es_in] = i
    order = range(len(rmin_sets) - 1, -1, -1) if reverse else range(len(rmin_sets))
    for e in order:
        for idx in rmin_sets[e]:
            if not np.all(mem[in_off + idx * es_in : in_off + (idx + 1) * es_in] == idx):
                return False
        mem[out_off + e * es_out : out_off + (e + 1) * es_out] = -2
    return True


@st.composite
def windows(draw):
    k = draw(st.integers(1, 3))
    s = draw(st.integers(1, 2))
    h, w = draw(st.integers(k, 6)), draw(st.integers(k, 6))
    same = draw(st.booleans())
    oh = (h + s - 1) // s if same else (h - k + s) // s
    ow = (w + s - 1) // s if same else (w - k + s) // s
    ph = max(((oh - 1) * s + k - h) // 2, 0)
    pw = max(((ow - 1) * s + k - w) // 2, 0)
    dims = dict(
        batches=1,
        in_h=h,
        in_w=w,
        out_h=oh,
        out_w=ow,
        k_h=k,
        k_w=k,
        stride_h=s,
        stride_w=s,
        pad_h=ph,
        pad_w=pw,
    )
    cin = draw(st.integers(1, 4))
    depthwise = draw(st.booleans())
    cout = cin * draw(st.integers(1, 2)) if depthwise else draw(st.integers(1, 4))
    es = draw(st.sampled_from([1, 4]))
    return dims, cin, cout, depthwise, es


def reads(dims, cin, cout, depthwise):
    """The input elements each output element reads, straight from the kernel loops."""
    out = []
    for oy in range(dims["out_h"]):
        for ox in range(dims["out_w"]):
            for oc in range(cout):
                idx = []
                for ky in range(dims["k_h"]):
                    for kx in range(dims["k_w"]):
                        y = oy * dims["stride_h"] - dims["pad_h"] + ky
                        x = ox * dims["stride_w"] - dims["pad_w"] + kx
                        if 0 <= y < dims["in_h"] and 0 <= x < dims["in_w"]:
                            base = (y * dims["in_w"] + x) * cin
                            chans = [oc * cin // cout] if depthwise else range(cin)
                            idx += [base + c for c in chans]
                out.append(idx)
    return out


@settings(max_examples=300, deadline=None)
@given(windows())
def test_overlap_gaps_are_safe_and_tight(window):
    dims, cin, cout, depthwise, es = window
    channel_of = np.arange(cout) * cin // cout if depthwise else None
    rule = inplace.windowed(0, dims, cin, cout, channel_of, es, es)
    sets = reads(dims, cin, cout, depthwise)
    n_in = dims["in_h"] * dims["in_w"] * cin
    base = 2000
    forward = max(rule.forward, -base)
    reverse = max(rule.reverse, -base)
    assert simulate(sets, n_in, es, es, base - forward, base, reverse=False)
    assert simulate(sets, n_in, es, es, base + reverse, base, reverse=True)
    if es == 1 and len(sets) > 1:
        # One byte closer and some input byte is overwritten before its last read.
        assert not simulate(sets, n_in, es, es, base - rule.forward + 1, base, reverse=False)
        assert not simulate(sets, n_in, es, es, base + rule.reverse - 1, base, reverse=True)


def replay(steps: inplace.Steps, n_in: int, out_off: int, in_off: int) -> bool:
    """Run a kernel's steps on a byte map (int8): does any read find an overwritten byte?"""
    size = max(out_off + int(steps.write_hi.max()), in_off + n_in) + 1
    mem = np.full(size, -1, dtype=np.int64)
    mem[in_off : in_off + n_in] = np.arange(n_in)
    for t in range(steps.write_lo.size):
        lo, hi = int(steps.read_lo[t]), int(steps.read_hi[t])
        if lo <= hi and not np.array_equal(
            mem[in_off + lo : in_off + hi + 1], np.arange(lo, hi + 1)
        ):
            return False
        mem[out_off + int(steps.write_lo[t]) : out_off + int(steps.write_hi[t])] = -2
    return True


@settings(max_examples=300, deadline=None)
@given(windows(), st.integers(1, 4), st.booleans())
def test_fast_kernel_gaps_are_safe_and_tight(window, group, patch):
    """The orders of tinyaot_conv_fast_s8 (pairs of pixels, blocks of four channels, PATCH
    or in-place reads) and tinyaot_dwconv_fast_s8 (groups of pixels written at once), replayed
    on a byte map at their gaps, one byte closer, and in both directions."""
    dims, cin, cout, depthwise, _ = window
    if depthwise:
        if dims["k_h"] != 3:
            return
        orders = [lambda rev: inplace.dwconv_fast_steps(dims, cin, group, rev)]
    else:
        orders = [lambda rev: inplace.conv_fast_steps(dims, cin, cout, patch, rev)]
    n_in = dims["in_h"] * dims["in_w"] * cin
    base = 2000
    for steps_of in orders:
        fwd, rev = steps_of(False), steps_of(True)
        g_f, g_r = inplace.forward_gap(fwd, 1, 1), inplace.reverse_gap(rev, 1, 1)
        assert replay(fwd, n_in, base - max(g_f, -base), base)
        assert replay(rev, n_in, base + max(g_r, -base), base)
        if g_f > -base:
            assert not replay(fwd, n_in, base - g_f + 1, base)
        if g_r > -base:
            assert not replay(rev, n_in, base + g_r - 1, base)


def replay_dw_chunks(dims, channels: int, group: int, out_off: int, in_off: int, rev: bool):
    """tinyaot_dwconv_fast_s8's order byte by byte: for each group of output pixels, for each
    chunk of 16 channels, read the chunk's window bytes, then write the chunk's output bytes.
    Does any read find an overwritten byte?"""
    n_in = dims["in_h"] * dims["in_w"] * channels
    sets = reads(dims, channels, channels, True)
    size = max(out_off + len(sets), in_off + n_in) + 1
    mem = np.full(size, -1, dtype=np.int64)
    mem[in_off : in_off + n_in] = np.arange(n_in)
    ow, pixels = dims["out_w"], len(sets) // channels
    groups = [
        range(row * ow + x, row * ow + min(x + group, ow))
        for row in range(pixels // ow)
        for x in range(0, ow, group)
    ]
    for g in groups[::-1] if rev else groups:
        for c0 in range(0, channels, 16):
            elems = [p * channels + c for p in g for c in range(c0, min(c0 + 16, channels))]
            for e in elems:
                if any(mem[in_off + i] != i for i in sets[e]):
                    return False
            for e in elems:
                mem[out_off + e] = -2
    return True


@settings(max_examples=150, deadline=None)
@given(windows(), st.sampled_from([4, 8, 20, 36]), st.integers(1, 6))
def test_dwconv_fast_chunks_are_safe_at_whole_pixel_gaps(window, channels, group):
    """The depthwise kernel writes each chunk of channels as soon as it is computed. At the
    gaps of inplace.dwconv_fast (whole pixels, as its modulus demands) that is safe; one pixel
    closer it is not, and neither is, in some case, an offset off the modulus."""
    dims = window[0]
    if dims["k_h"] != 3:
        return
    rule = inplace.dwconv_fast(0, dims, channels, group)
    assert rule.modulus == channels
    base = 4000 // channels * channels
    fwd, rev = max(rule.forward, -base), max(rule.reverse, -base)
    assert fwd % channels == 0 and rev % channels == 0
    assert replay_dw_chunks(dims, channels, group, base - fwd, base, False)
    assert replay_dw_chunks(dims, channels, group, base + rev, base, True)
    if rule.forward > -base:
        assert not replay_dw_chunks(dims, channels, group, base - fwd + channels, base, False)
    if rule.reverse > -base:
        assert not replay_dw_chunks(dims, channels, group, base + rev - channels, base, True)


def test_dwconv_fast_needs_its_modulus():
    """At a gap that is not a whole number of pixels, a later chunk's input can be lost."""
    dims = dict(
        batches=1,
        in_h=4,
        in_w=4,
        out_h=4,
        out_w=4,
        k_h=3,
        k_w=3,
        stride_h=1,
        stride_w=1,
        pad_h=1,
        pad_w=1,
    )
    rule = inplace.dwconv_fast(0, dims, 20, 4)
    base = 4000
    assert replay_dw_chunks(dims, 20, 4, base - rule.forward, base, False)
    assert not replay_dw_chunks(dims, 20, 4, base - rule.forward - 8, base, False)


@settings(max_examples=100, deadline=None)
@given(windows())
def test_element_steps_give_the_reference_gaps(window):
    """The step model reproduces gaps() for the reference kernels' element order."""
    dims, cin, cout, depthwise, es = window
    channel_of = np.arange(cout) * cin // cout if depthwise else None
    rule = inplace.windowed(0, dims, cin, cout, channel_of, es, es)
    sets = reads(dims, cin, cout, depthwise)
    if len(sets) < 2 or any(not r for r in sets):
        return
    rmin = np.array([min(r) for r in sets])
    rmax = np.array([max(r) for r in sets])
    fwd = inplace.forward_gap(inplace.element_steps(rmin, rmax, False), es, es)
    rev = inplace.reverse_gap(inplace.element_steps(rmin, rmax, True), es, es)
    assert (fwd, rev) == (rule.forward, rule.reverse)


# TFLM's arena for the activations ("head"), measured with the tflite-micro package
# (bench/tflm_arena.py), and the targets this project set itself.
TARGETS = {
    "mlperf_tiny_kws_dscnn_int8": (16000, 8400),
    "mlperf_tiny_vww_mobilenetv1_int8": (73728, 38700),
    "mlperf_tiny_ic_resnet8_int8": (49152, 34800),
    "mlperf_tiny_ad_autoencoder_int8": (768, 768),
    "tflm_micro_speech_int8": (5968, 4400),
}


@pytest.mark.parametrize("model", model_paths(), ids=[m.stem for m in model_paths()])
def test_shared_model_plans(model):
    compiled = compile_ir(model, Options(name="m"))
    assert violations(compiled.plan) == []
    largest = max(b.size for b in compiled.plan.buffers.values())
    assert compiled.plan.size >= largest
    if model.stem in TARGETS:
        tflm_head, target = TARGETS[model.stem]
        assert compiled.plan.size <= target
        assert compiled.plan.size <= tflm_head


def test_arena_never_exceeds_tflm():
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    from tflm_arena import tflm_allocations

    for model in model_paths():
        ours = compile_ir(model, Options(name="m")).plan.size
        assert ours <= tflm_allocations(str(model))["head"], model.stem


def test_arena_section_and_alignment(tmp_path):
    model = MODELS / "tflm_hello_world_int8.tflite"
    out = compile_model(
        model, tmp_path / "g", "hw", "--arena-section", ".noinit.ai", "--arena-alignment", "64"
    )
    text = (out / "hw.c").read_text()
    assert 'TINYAOT_ALIGNED(64) TINYAOT_SECTION(".noinit.ai")' in text
    assert "#define HW_ARENA_ALIGNMENT 64" in (out / "hw.h").read_text()
