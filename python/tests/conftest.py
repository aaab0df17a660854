"""Shared fixtures: the repository's configs and the models the build
generates (tools/models, under $TESSERA_MODELS_DIR)."""

import os
import pathlib

import numpy as np
import pytest

import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = pathlib.Path(os.environ.get("TESSERA_MODELS_DIR", ROOT / "build" / "models"))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def default_cfg():
    return tessera.load_config(ROOT / "configs" / "default.json")


@pytest.fixture(scope="session")
def digits():
    """(onnx path, calibration batch, 16 test images, their labels)."""
    d = MODELS / "digits"
    if not (d / "model.onnx").exists():
        pytest.fail(f"{d}/model.onnx is missing: build the tessera_models target")
    return d / "model.onnx", np.load(d / "calib.npy"), np.load(d / "test_x.npy")[:16], np.load(d / "test_y.npy")[:16]


@pytest.fixture(scope="session")
def digits_model(digits, default_cfg):
    path, calib, _, _ = digits
    return tessera.compile(path, default_cfg, calib=calib)
