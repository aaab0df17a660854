"""The area model's machinery on real Yosys output: a test fixture (a MAC
array sized by the generated config header, python/tests/data) synthesized
for a few configs, fitted, and checked on a held-out config."""

import os
import shutil

import pytest

import tessera
from tessera import area

pytestmark = pytest.mark.skipif(shutil.which("yosys") is None, reason="needs yosys (tools/install-deps.sh)")

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "area_fixture.v")


@pytest.fixture(scope="module")
def small(default_cfg):
    # A 1-byte beat: `tessera isa verilog` refuses tiles narrower than a beat (the 1x1 shapes below).
    changes = {f"scratchpads.{m}_bytes": 1024 for m in ("inp", "wgt", "acc", "uop")}
    return default_cfg.with_changes({**changes, "dram.bytes_per_cycle": 1})


def _cli(root):
    return os.path.join(os.environ.get("TESSERA_BUILD_DIR", root / "build"), "tools", "tessera")


def test_fit_predicts_a_heldout_config(small, root):
    shape = lambda b, n: small.with_changes({"gemm.batch": b, "gemm.block_in": n, "gemm.block_out": n})  # noqa: E731
    train = [shape(1, 1), shape(1, 2), shape(2, 1)]
    rows = [area.synthesize_config(c, [FIXTURE], "area_fixture", tessera_cli=_cli(root)) for c in train]
    assert rows[0]["cells"] < rows[1]["cells"]  # 1 vs 4 multipliers
    model = area.fit(train, rows, feature_names=["const", "macs", "acc_lane_bits"])
    held = shape(2, 2)
    want = area.synthesize_config(held, [FIXTURE], "area_fixture", tessera_cli=_cli(root))
    err = area.heldout_error(model, [held], [want])["cells"]
    assert err["max"] < 0.15, (model, want["cells"], area.predict(model, held))
    assert set(area.estimate(held, model)) == {"area_cells"}


def test_fpga_flow_counts_resources(small, root):
    r = area.synthesize_config(small.with_changes({"gemm.block_in": 1, "gemm.block_out": 1}), [FIXTURE],
                               "area_fixture", flow="ice40", tessera_cli=_cli(root))
    assert r["luts"] > 0 and r["ffs"] == 32  # the one 32-bit accumulator
    assert r["luts"] + r["ffs"] <= r["cells"]


def test_stat_json_with_hierarchy_lines():
    # Yosys 0.23's `stat -json` of a design with submodules, as tsr_accel's gives it.
    text = ('{\n "modules": {\n  "\\\\sub": {\n   "num_cells": 2\n  }\n },\n'
            '       $paramod$0f86\\tsr_sdp_ram      1\n       \\sub      4\n'
            ' "design": {\n  "num_cells": 9,\n  "num_cells_by_type": {\n   "LUT6": 9\n  }\n }\n}\n')
    assert area.parse_stat_json(text)["design"] == {"num_cells": 9, "num_cells_by_type": {"LUT6": 9}}


def test_synthesis_errors_raise(tmp_path):
    bad = tmp_path / "bad.v"
    bad.write_text("module bad(; endmodule\n")
    with pytest.raises(tessera.TesseraError, match="yosys failed"):
        area.synthesize([str(bad)], "bad")


def test_staleness_names_the_changed_rtl(root, tmp_path):
    from tessera import area_fit
    spec = area_fit.load_spec(root / "tools" / "area" / "fit.yaml")
    sources, top = area_fit.rtl_sources(spec["rtl"])
    assert top == "tsr_accel" and len(sources) > 10
    fitted = {"provenance": {"rtl_sha256": area_fit.rtl_hashes(sources),
                             "isa_fingerprint": f"{tessera.load_config(spec['base_config']).isa_fingerprint:016x}"}}
    assert area_fit.staleness(fitted, spec) == []
    for f in sources + [os.path.join(spec["rtl"], "CMakeLists.txt")]:
        shutil.copy(f, tmp_path)
    edited = tmp_path / "tsr_fifo.v"
    edited.write_text(edited.read_text() + "\n// edited\n")
    stale = area_fit.staleness(fitted, dict(spec, rtl=str(tmp_path)))
    assert len(stale) == 1 and "tsr_fifo.v" in stale[0], stale


def test_cli_check_reports_a_missing_model(root, tmp_path, capsys):
    from tessera.__main__ import main
    assert main(["area", "check", str(root / "tools" / "area" / "fit.yaml"), "-o", str(tmp_path / "none.json")]) == 1
    assert "no model" in capsys.readouterr().out
