"""The Python API (docs/python.md) over the library: configs, compiling from a
path or an onnx.ModelProto, running on targets, artifacts, and errors raised
as exceptions rather than aborts."""

import json
import pickle
import subprocess
import sys

import numpy as np
import onnx
import pytest

import tessera


def test_load_config_and_with_changes(default_cfg):
    assert default_cfg.name == "default"
    assert default_cfg["gemm.block_in"] == 16
    wide = default_cfg.with_changes({"gemm.block_in": 32, "dram.latency_cycles": 64})
    assert wide["gemm.block_in"] == 32 and wide["dram.latency_cycles"] == 64
    assert wide.macs_per_cycle == 2 * default_cfg.macs_per_cycle
    assert default_cfg["gemm.block_in"] == 16  # the original is unchanged
    assert wide != default_cfg
    assert pickle.loads(pickle.dumps(wide)) == wide


@pytest.mark.parametrize("change, words", [
    ({"gemm.block_inx": 32}, ["gemm.block_inx", "unknown key"]),
    ({"gemm.block_in": 33}, ["gemm.block_in", "power of two"]),
    ({"dram.latency_cycles": "slow"}, ["dram.latency_cycles"]),
])
def test_with_changes_rejects_with_the_key(default_cfg, change, words):
    with pytest.raises(tessera.TesseraError) as e:
        default_cfg.with_changes(change)
    for w in words:
        assert w in str(e.value)
    assert e.value.code == "invalid argument"


def test_params_are_the_config_table(default_cfg):
    rows = {p["key"]: p for p in tessera.params()}
    assert rows["gemm.block_in"]["kind"] == "pow2" and rows["dram.latency_cycles"]["unit"] == "cycles"
    assert rows["clock_mhz"]["effect"] == "timing" and rows["gemm.batch"]["effect"] == "behaviour"
    assert set(default_cfg.params()) == set(rows)  # every parameter has a value, nothing else
    assert default_cfg.params()["clock_mhz"] == 100.0


def test_load_config_errors(tmp_path):
    with pytest.raises(tessera.TesseraError, match="nope.json"):
        tessera.load_config(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "gemm": {"block_in": 7}}')
    with pytest.raises(tessera.TesseraError, match="bad.json"):
        tessera.load_config(bad)


def test_run_on_sim_matches_cpu_reference(digits, digits_model):
    _, _, x, y = digits
    sim = digits_model.run(x, target="sim")
    cpu = digits_model.run(x, target="cpu")
    ref = digits_model.run(x, target="ref")
    assert isinstance(sim.outputs, list) and sim.outputs[0].shape == (16, 10)
    np.testing.assert_array_equal(sim.outputs[0], cpu.outputs[0])
    np.testing.assert_array_equal(sim.outputs[0], ref.outputs[0])
    assert (sim.outputs[0].argmax(1) == y).mean() > 0.8
    assert sim.cycles > 0 and 0 < sim.gemm_utilization <= 1
    assert sim.stats["batches"] == 16 and sim.stats["target"] == "sim"
    assert sim.latency_us == pytest.approx(sim.cycles / 16 / 100)
    accel = [layer for layer in sim.layers if layer["where"] == "accelerator"]
    assert accel and all(layer["cycles"] > 0 for layer in accel)
    assert sum(layer["cycles"] for layer in accel) == sim.cycles
    assert set(sim.modules) == {"fetch", "load", "compute", "store"}
    assert sim.modules["compute"]["busy"] > 0


def test_stats_are_the_cli_stats_json(digits, digits_model, tmp_path, root):
    """Result.stats is the object `tessera run --stats-json` writes."""
    import os
    _, _, x, _ = digits
    tsr, xs, js = tmp_path / "m.tsr", tmp_path / "x.npy", tmp_path / "stats.json"
    digits_model.save(tsr)
    np.save(xs, x)
    cli = os.path.join(os.environ.get("TESSERA_BUILD_DIR", root / "build"), "tools", "tessera")
    subprocess.run([cli, "run", str(tsr), "--target", "sim", "--input", str(xs), "--output",
                    str(tmp_path / "y.npy"), "--stats-json", str(js)],
                   check=True, capture_output=True)
    want = json.loads(js.read_text())
    got = tessera.load_model(tsr).run(x, target="sim").stats
    for s in (want, got):
        s.pop("host_seconds")
        for layer in s["layers"]:
            layer.pop("host_seconds", None)
    assert got == want


def test_compile_from_model_proto_equals_path(digits, digits_model, default_cfg):
    path, calib, x, _ = digits
    proto = onnx.load(str(path))
    m = tessera.compile(proto, default_cfg, calib=calib)
    assert m.to_bytes() != b""
    a, b = m.run(x), digits_model.run(x)
    np.testing.assert_array_equal(a.outputs[0], b.outputs[0])
    assert a.cycles == b.cycles


def test_import_once_compile_for_many_configs(digits, default_cfg):
    path, calib, x, _ = digits
    g = tessera.import_model(path, calib=calib)
    assert g.quantized and g.inputs[0]["shape"] == [1, 1, 8, 8]
    cycles = {}
    for b in (8, 16, 32):
        # The default's scratchpad entries at each GEMM width (the compiler wants BLOCK_IN == BLOCK_OUT).
        cfg = default_cfg.with_changes({"gemm.block_in": b, "gemm.block_out": b, "scratchpads.inp_bytes": 2048 * b,
                                        "scratchpads.wgt_bytes": 1024 * b * b, "scratchpads.acc_bytes": 8192 * b})
        m = tessera.compile(g, cfg)
        assert m.config == cfg
        cycles[b] = m.run(x[:2]).cycles
    assert cycles[8] > cycles[16] > 0 and cycles[32] > 0  # digits has 16 channels: 32 wide pads


def test_save_load_and_pickle(digits, digits_model, tmp_path):
    _, _, x, _ = digits
    p = tmp_path / "digits.tsr"
    digits_model.save(p)
    loaded = tessera.load_model(p)
    clone = pickle.loads(pickle.dumps(digits_model))
    want = digits_model.run(x)
    for m in (loaded, clone):
        r = m.run(x)
        np.testing.assert_array_equal(r.outputs[0], want.outputs[0])
        assert r.cycles == want.cycles
    assert [s["kind"] for s in loaded.steps()] == [s["kind"] for s in digits_model.steps()]


def test_timing_only_option(digits, digits_model):
    _, _, x, _ = digits
    full = digits_model.run(x[:2], target="sim")
    fast = digits_model.run(x[:2], target="sim", timing_only=True)
    assert fast.cycles == full.cycles


def test_inputs_by_name_and_list(digits, digits_model):
    _, _, x, _ = digits
    name = digits_model.session().inputs[0]["name"]
    a = digits_model.run({name: x[:2]})
    b = digits_model.run([x[:2].astype(np.float64)])  # float64 is converted
    np.testing.assert_array_equal(a.outputs[0], b.outputs[0])
    with pytest.raises(tessera.TesseraError, match="unknown input"):
        digits_model.run({"nope": x[:2]})


def test_errors_raise_not_abort(digits, digits_model, default_cfg, tmp_path):
    path, calib, x, _ = digits
    with pytest.raises(tessera.TesseraError, match="must be f32"):
        digits_model.run(np.zeros((3, 3), np.float32))
    with pytest.raises(tessera.TesseraError) as e:
        digits_model.run(x, target="no-such-target")
    assert "sim" in str(e.value)  # the error names the targets the build has
    with pytest.raises(tessera.TesseraError, match="dtype"):
        digits_model.run(x.astype(np.complex64))
    with pytest.raises(tessera.TesseraError, match="missing.onnx"):
        tessera.compile(tmp_path / "missing.onnx", default_cfg, calib=calib)
    junk = tmp_path / "junk.tsr"
    junk.write_bytes(b"not a model")
    with pytest.raises(tessera.TesseraError, match="junk.tsr"):
        tessera.load_model(junk)
    with pytest.raises(TypeError):
        tessera.compile(42, default_cfg)
    # A config too small for the model: the compiler's error, as an exception.
    tiny = default_cfg.with_changes({"scratchpads.uop_bytes": 64, "scratchpads.inp_bytes": 64})
    with pytest.raises(tessera.TesseraError):
        tessera.compile(path, tiny, calib=calib)


def test_targets_come_from_the_registry():
    names = [t["name"] for t in tessera.targets()]
    assert names[:3] == ["cpu", "ref", "sim"]
    every = {t["name"]: t for t in tessera.targets(built_only=False)}
    assert every["sim"]["has_timing"] and not every["cpu"]["has_timing"]


def test_import_from_a_subprocess_with_the_documented_path(root):
    """`PYTHONPATH=<build>/python /usr/bin/python3 -c 'import tessera'` (docs/python.md)."""
    r = subprocess.run([sys.executable, "-c", "import tessera; print(tessera.__file__)"], capture_output=True,
                       text=True, check=True)
    assert r.stdout.strip().endswith("tessera/__init__.py")
