"""Models: import and quantize (the config-independent front half), compile
for a config, save and load ``.tsr`` artifacts, run numpy arrays on a target.

    g = tessera.import_model("model.onnx", calib=x)       # int8 graph, any config
    m = tessera.compile(g, cfg)                            # or compile("model.onnx", cfg, calib=x)
    r = m.run(x, target="sim")                             # Result: outputs, cycles, layers, stats
"""

import json
import os
import time

import numpy as np

from tessera import _core
from tessera.config import Config
from tessera.errors import TesseraError

_NUMPY = {"f32": np.float32, "i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64}


def targets(built_only=True):
    """The backend registry's targets (driver/registry.h) as dicts: name,
    description, has_timing, is_device, built, enable, options."""
    return [t for t in _core.targets() if t["built"] or not built_only]


class Graph:
    """An imported graph: float, or int8 when calibration data was given."""

    def __init__(self, core):
        self._g = core

    name = property(lambda self: self._g.name)
    inputs = property(lambda self: self._g.inputs)
    outputs = property(lambda self: self._g.outputs)
    quantized = property(lambda self: self._g.quantized)

    @property
    def front_seconds(self):
        """Import + passes + calibration/quantization time."""
        return self._g.import_seconds + self._g.pass_seconds + self._g.quant_seconds

    def text(self, elide_constants=True):
        """The graph IR's text form (docs/compiler.md)."""
        return self._g.text(elide_constants)

    def __repr__(self):
        kind = "int8" if self.quantized else "float"
        return f"<tessera.Graph '{self.name}' ({kind}) inputs={[i['type'] for i in self.inputs]}>"


def _model_source(model):
    """(source, name, base_dir) for _core.import_graph from a path or an onnx.ModelProto."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), None, ""
    serialize = getattr(model, "SerializeToString", None)
    if serialize is None:
        raise TypeError(f"expected an ONNX file path or an onnx.ModelProto, got {type(model).__name__}")
    name = model.graph.name or "onnx.ModelProto"
    return serialize(), name, ""


def import_model(model, calib=None, *, observer="minmax", percentile=99.99, input_shapes=None, batch=1,
                 base_dir=""):
    """Imports an ONNX model (path or onnx.ModelProto; .tir files too), runs the
    graph passes and, with ``calib`` (a numpy array of inputs), quantizes to int8.

    ``input_shapes`` ({input: shape}) fixes input shapes; ``batch`` is the value of
    symbolic dimensions. The result does not depend on a hardware config."""
    source, name, _ = _model_source(model)
    if calib is not None:
        calib = np.ascontiguousarray(calib, dtype=np.float32) if np.issubdtype(np.asarray(calib).dtype,
                                                                                np.floating) else np.asarray(calib)
    shapes = {k: [int(d) for d in v] for k, v in (input_shapes or {}).items()}
    g = _core.import_graph(source, name or os.fspath(source), base_dir, calib, observer, float(percentile), shapes,
                           int(batch))
    return Graph(g)


def _default_name(model):
    if isinstance(model, (str, os.PathLike)):
        base = os.path.basename(os.fspath(model))
        return base.split(".")[0]
    if isinstance(model, Graph):
        return model.name
    return getattr(getattr(model, "graph", None), "name", "") or "model"


def compile(model, cfg, calib=None, *, name=None, cpu_fallback=False, im2col_channels=8, **import_options):
    """Compiles a model for a config: ``model`` is an ONNX path, an onnx.ModelProto
    or a Graph from import_model (then ``calib`` must be None). Returns a Model.
    Without ``calib`` float layers stay on the CPU (as ``tessera compile``)."""
    if isinstance(cfg, (str, os.PathLike)):
        cfg = Config.load(cfg)
    if not isinstance(cfg, Config):
        raise TypeError(f"expected a tessera.Config, got {type(cfg).__name__}")
    if isinstance(model, Graph):
        if calib is not None or import_options:
            raise TypeError("a Graph is already imported: pass calib and import options to import_model")
        graph = model
    else:
        graph = import_model(model, calib, **import_options)
    t0 = time.perf_counter()
    core = _core.compile_graph(graph._g, cfg._hw, name or _default_name(model), bool(cpu_fallback),
                               int(im2col_channels))
    m = Model(core)
    m.compile_seconds = time.perf_counter() - t0
    m.front_seconds = graph.front_seconds
    return m


def load_model(path):
    """Loads a compiled model (.tsr)."""
    return Model(_core.load_model(os.fspath(path)))


def _as_input_list(inputs, specs):
    if isinstance(inputs, dict):
        names = [s["name"] for s in specs]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise TesseraError(f"unknown input(s) {unknown}: the model takes {names}", "invalid argument")
        missing = [n for n in names if n not in inputs]
        if missing:
            raise TesseraError(f"missing input(s) {missing}", "invalid argument")
        inputs = [inputs[n] for n in names]
    elif not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    out = []
    for x, spec in zip(inputs, specs):
        x = np.asarray(x)
        want = _NUMPY[spec["dtype"]]
        # Float data of another width is converted (float64 from numpy defaults);
        # anything else goes to the library as given, which names a mismatch.
        if want == np.float32 and np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32, copy=False)
        out.append(np.ascontiguousarray(x))
    out.extend(np.asarray(x) for x in inputs[len(specs):])  # too many: the library says so
    return out


class Result:
    """One run: ``outputs`` (numpy arrays), ``stats`` (the --stats-json dict),
    and on targets with timing ``cycles``, ``gemm_utilization``, ``layers``."""

    def __init__(self, raw, config):
        self.outputs = list(raw["outputs"])
        self.stats = json.loads(raw["stats_json"])
        self.counters = raw["counters"]  # device event counters summed over the run (driver/device.h)
        self.summary = raw["summary"]
        self.layer_table = raw["layer_table"]
        self.config = config

    cycles = property(lambda self: self.stats["cycles"])
    gemm_utilization = property(lambda self: self.stats["gemm_utilization"])
    layers = property(lambda self: self.stats["layers"])
    batches = property(lambda self: self.stats["batches"])
    dram_read_bytes = property(lambda self: self.stats["dram_read_bytes"])
    dram_write_bytes = property(lambda self: self.stats["dram_write_bytes"])

    @property
    def modules(self):
        """Per module (fetch, load, compute, store): busy / wait_token / wait_queue / wait_memory cycles."""
        return {m: self.stats[m] for m in ("fetch", "load", "compute", "store")}

    @property
    def latency_us(self):
        """Device time per batch at the config's clock, in microseconds."""
        return self.cycles / max(self.batches, 1) / self.config.clock_mhz

    def __repr__(self):
        return f"<tessera.Result {self.summary}>"


class Session:
    """A compiled model opened on a target; runs keep constants on the device."""

    def __init__(self, model, target="sim", *, device_config=None, trace=False, timeout_ms=-1, options=None):
        opts = {k: ("true" if v is True else str(v)) for k, v in (options or {}).items() if v is not False}
        dev = device_config._hw if device_config is not None else None
        self._s = _core.open_session(model._m, target, dev, bool(trace), int(timeout_ms), opts)
        self.config = Config(self._s.config)

    target = property(lambda self: self._s.target)
    has_timing = property(lambda self: self._s.has_timing)
    inputs = property(lambda self: self._s.inputs)
    outputs = property(lambda self: self._s.outputs)

    def run(self, inputs):
        """Inputs: an array (one-input models), a list in input order or a dict by
        name; each with a leading dimension that is a multiple of the model's batch."""
        return Result(self._s.run(_as_input_list(inputs, self.inputs)), self.config)

    def trace_json(self):
        """Chrome Trace Event JSON of the runs so far (open with https://ui.perfetto.dev)."""
        return self._s.trace_json()


class Model:
    """A compiled model (the .tsr artifact) in memory."""

    def __init__(self, core):
        self._m = core
        self._sessions = {}
        self.compile_seconds = None
        self.front_seconds = None

    name = property(lambda self: self._m.name)

    @property
    def config(self):
        return Config.from_json(self._m.config_json, f"model '{self.name}'")

    def steps(self):
        """The artifact's steps (ACCEL/CPU/UPLOAD/DOWNLOAD) with placement reason,
        predicted cycles and useful MACs."""
        return self._m.steps()

    def describe(self):
        """The placement table of ``tessera inspect MODEL.tsr``."""
        return self._m.describe()

    def save(self, path):
        self._m.save(os.fspath(path))

    def to_bytes(self):
        return self._m.to_bytes()

    @classmethod
    def from_bytes(cls, data, source="<bytes>"):
        return cls(_core.parse_model(bytes(data), source))

    def session(self, target="sim", **kwargs):
        return Session(self, target, **kwargs)

    def run(self, inputs, target="sim", **options):
        """Runs on a target of the registry; keyword options are the target's own
        (e.g. ``timing_only=True`` for sim's --timing-only). Sessions are cached per
        target and options."""
        opts = {k.replace("_", "-"): v for k, v in options.items()}
        key = (target, tuple(sorted(opts.items())))
        if key not in self._sessions:
            self._sessions[key] = Session(self, target, options=opts)
        return self._sessions[key].run(inputs)

    def __reduce__(self):  # pickles as the artifact's bytes
        return (Model.from_bytes, (self.to_bytes(), f"model '{self.name}'"))

    def __repr__(self):
        return f"<tessera.Model '{self.name}' for config '{self.config.name}'>"
