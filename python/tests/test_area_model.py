"""The committed area model (python/tessera/area_model.json, fitted by
`make area-model` from tools/area/fit.yaml): it loads, records how it was
fitted, and its estimates grow with the core."""

import pytest

import tessera
from tessera import area


@pytest.fixture(scope="module")
def tiny_cfg(root):
    return tessera.load_config(root / "configs" / "tiny.json")


@pytest.fixture(scope="module")
def committed():
    model = area.load()
    assert model is not None, "python/tessera/area_model.json is missing: make area-model"
    return model


def test_committed_model_records_its_fit(committed, tiny_cfg, root):
    from tessera import area_fit
    spec = area_fit.load_spec(root / "tools" / "area" / "fit.yaml")
    assert committed["features"] == spec["features"] and set(spec["features"]) <= set(area.features(tiny_cfg))
    prov = committed["provenance"]
    assert prov["top"] == "tsr_accel" and prov["flow"].startswith("xilinx") and prov["yosys"].startswith("Yosys")
    assert "tsr_accel.v" in prov["rtl_sha256"]
    train = [p for p in committed["points"] if p["set"] == "train"]
    held = [p for p in committed["points"] if p["set"] == "heldout"]
    assert len(train) == committed["training_points"] >= len(committed["features"]) and held
    for m, err in committed["heldout"].items():
        assert err["points"] == len(held)
        worst = max(abs(p["predicted"][m] - p["synthesis"][m]) / max(p["synthesis"][m], 1) for p in held)
        assert abs(worst - err["max"]) < 0.01, m  # the recorded error is the recorded points'


def test_committed_model_estimates_grow_with_the_core(committed, tiny_cfg):
    shape = lambda n: tiny_cfg.with_changes({"gemm.block_in": n, "gemm.block_out": n})  # noqa: E731
    est = [area.estimate(shape(n)) for n in (2, 4, 8)]
    for e in est:
        assert all(v > 0 for k, v in e.items() if k in ("area_cells", "area_luts", "area_ffs")), e
    # Resources grow with the core; Yosys's total cell count (muxes, inverters,
    # carries) need not: 2x2 synthesizes to 103,190 cells, tiny's 4x4 to 102,664.
    for k in ("area_luts", "area_ffs", "area_dsps"):
        assert est[0][k] < est[1][k] < est[2][k], (k, est)
    big = tiny_cfg.with_changes({f"scratchpads.{m}_bytes": 4 * tiny_cfg[f"scratchpads.{m}_bytes"]
                                 for m in ("inp", "wgt", "acc", "uop")})
    assert area.estimate(big)["area_brams"] > area.estimate(tiny_cfg)["area_brams"]
