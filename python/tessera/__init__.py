"""Tessera from Python: configs, compiling ONNX models, running them on the
simulated accelerator (or any target of the backend registry), and
architecture exploration (tessera.sweep). See docs/python.md.

    import tessera
    cfg = tessera.load_config("configs/default.json").with_changes({"dram.latency_cycles": 64})
    model = tessera.compile("model.onnx", cfg, calib=x)
    r = model.run(x, target="sim")
    print(r.cycles, r.gemm_utilization, r.outputs[0].shape)
"""

from tessera.errors import TesseraError  # noqa: F401  (first: the binding raises it)
from tessera import _core  # noqa: F401
from tessera.config import Config, load_config, params  # noqa: F401
from tessera.model import (Graph, Model, Result, Session, compile, import_model, load_model,  # noqa: F401
                           targets)

__all__ = ["TesseraError", "Config", "load_config", "params", "Graph", "Model", "Result", "Session", "compile",
           "import_model", "load_model", "targets"]
