// Model bindings: the front half (ONNX file or bytes -> passes -> int8 graph,
// config independent, so a sweep imports and quantizes each model once), the
// back half (graph + config -> compiled model), .tsr bytes and files, and the
// model session (compiler/backend/session.h) that runs numpy arrays on a
// target. Long calls release the GIL; one session runs one batch at a time.
#include <pybind11/stl.h>

#include <mutex>

#include "compiler/backend/compile.h"
#include "compiler/backend/session.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/ir/printer.h"
#include "compiler/pipeline/pipeline.h"
#include "isa/isa.h"
#include "python/src/binding.h"

namespace tessera::python {
namespace {

// An imported (and, with calibration data, int8-quantized) graph.
struct Graph {
  std::shared_ptr<const ir::Graph> graph;
  bool quantized = false;
  double import_seconds = 0, pass_seconds = 0, quant_seconds = 0;
};

struct Model {
  std::shared_ptr<const tsr::Model> proto;
};

struct Session {
  std::unique_ptr<backend::Session> session;
  std::mutex mu;           // Session::Run is not reentrant; the GIL is released while it runs
  backend::RunStats last;  // of the latest run: TraceJson's layers on targets without timing
};

py::list ValueList(const std::vector<ir::Value*>& values) {
  py::list l;
  for (const ir::Value* v : values) {
    py::dict d;
    d["name"] = v->name();
    d["dtype"] = std::string(ir::DTypeName(v->type().dtype));
    d["shape"] = v->type().shape;
    d["type"] = ir::TypeToString(v->type());
    l.append(d);
  }
  return l;
}

Graph ImportGraph(const py::object& source, const std::string& name, const std::string& base_dir,
                  const std::optional<py::array>& calib, const std::string& observer, double percentile,
                  const std::map<std::string, std::vector<int64_t>>& input_shapes, int64_t symbolic_dim_value) {
  compiler::ModelSource src;
  if (py::isinstance<py::bytes>(source)) {
    const std::string bytes = source.cast<std::string>();
    src = compiler::ModelSource::OnnxBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), name, base_dir);
  } else {
    src = compiler::ModelSource::File(source.cast<std::string>());
  }
  compiler::CompileOptions co;
  co.import.symbolic_dim_value = symbolic_dim_value;
  for (const auto& [input, shape] : input_shapes) co.import.input_shapes[input] = shape;
  if (observer == "percentile") {
    co.calib.observer = quant::Observer::kPercentile;
  } else if (observer != "minmax") {
    throw StatusError(InvalidArgumentError("observer '{}': expected 'minmax' or 'percentile'", observer));
  }
  co.calib.percentile = percentile;
  std::optional<ir::Tensor> calib_tensor;
  if (calib) {
    calib_tensor = TensorFromArray(*calib, "calibration data");
    co.quantize = true;
    co.calibration = &*calib_tensor;
  }
  StatusOr<compiler::CompileResult> r = InternalError("not run");
  {
    py::gil_scoped_release release;
    r = compiler::Compile(src, co);
  }
  compiler::CompileResult cr = Unwrap(std::move(r));
  return Graph{std::shared_ptr<const ir::Graph>(std::move(cr.graph)), co.quantize, cr.import_seconds, cr.pass_seconds,
               cr.quant_seconds};
}

Model CompileGraph(const Graph& g, const HwConfig& cfg, const std::string& name, bool cpu_fallback,
                   int64_t im2col_channels) {
  backend::BackendOptions bo;
  bo.model_name = name;
  bo.partition.cpu_fallback = cpu_fallback;
  bo.partition.im2col_max_channels = im2col_channels;
  StatusOr<std::unique_ptr<tsr::Model>> m = InternalError("not run");
  {
    py::gil_scoped_release release;
    m = backend::CompileGraph(*g.graph, cfg, bo);
  }
  return Model{Unwrap(std::move(m))};
}

py::list Steps(const tsr::Model& m) {
  py::list l;
  for (const tsr::Step& st : m.steps()) {
    py::dict d;
    d["kind"] = tsr::Step::Kind_Name(st.kind());
    d["node"] = st.node();
    d["op"] = st.op();
    d["reason"] = st.reason();
    d["value"] = st.value();
    d["predicted_cycles"] = st.predicted_cycles();
    d["useful_macs"] = st.useful_macs();
    l.append(d);
  }
  return l;
}

std::shared_ptr<Session> OpenSession(const Model& m, const std::string& target, const std::optional<HwConfig>& device,
                                     bool trace, int64_t timeout_ms,
                                     const std::map<std::string, std::string>& options) {
  backend::SessionOptions so;
  so.target = target;
  so.device_config = device;
  so.trace = trace;
  so.timeout_ms = timeout_ms;
  for (const auto& [k, v] : options) so.backend.Set(k, v);
  auto copy = std::make_unique<tsr::Model>(*m.proto);
  StatusOr<std::unique_ptr<backend::Session>> s = InternalError("not run");
  {
    py::gil_scoped_release release;
    s = backend::Session::Open(std::move(copy), so);
  }
  auto out = std::make_shared<Session>();
  out->session = Unwrap(std::move(s));
  return out;
}

// The device's event counters summed over the run (driver/device.h): what
// tessera.energy counts (GEMM/ALU iterations, bytes loaded per scratchpad).
// A counter the config does not build (isa/counters.h CounterBuilt) is None.
py::dict CountersDict(const HwConfig& cfg, const DeviceCounters& c) {
  auto built = [&](regs::Counter k, int64_t v) -> py::object {
    return CounterBuilt(cfg, k) ? py::object(py::int_(v)) : py::object(py::none());
  };
  using regs::Counter;
  py::dict d, by_opcode, by_mem;
  for (const OpcodeInfo& o : kOpcodes)
    by_opcode[py::str(std::string(o.name))] =
        built(Counter::insns_by_opcode, c.insns_by_opcode[static_cast<int>(o.op)]);
  for (const MemInfo& m : kMemTypes)
    by_mem[py::str(std::string(m.name))] =
        built(Counter::load_bytes_by_mem, c.load_bytes_by_mem[static_cast<int>(m.mem)]);
  d["cycles"] = built(Counter::cycles, c.cycles);
  d["insns"] = built(Counter::insns_by_opcode, c.insns());
  d["macs"] = built(Counter::macs, c.macs);
  d["gemm_iterations"] = built(Counter::gemm_iterations, c.gemm_iterations);
  d["alu_iterations"] = built(Counter::alu_iterations, c.alu_iterations);
  d["dram_read_bytes"] = built(Counter::load_bytes_by_mem, c.dram_read_bytes());
  d["dram_write_bytes"] = built(Counter::dram_write_bytes, c.dram_write_bytes);
  d["insn_fetch_bytes"] = built(Counter::insn_fetch_bytes, c.insn_fetch_bytes);
  d["uop_loads"] = built(Counter::uop_loads, c.uop_loads);
  d["dram_busy_cycles"] = built(Counter::dram_busy_cycles, c.dram_busy_cycles);
  d["port_bursts"] = built(Counter::port_bursts, c.port_bursts);
  d["insns_by_opcode"] = by_opcode;
  d["load_bytes_by_mem"] = by_mem;
  return d;
}

py::dict RunSession(Session& s, const std::vector<py::array>& inputs) {
  std::vector<ir::Tensor> xs;
  const auto& graph_inputs = s.session->graph().inputs();
  for (size_t i = 0; i < inputs.size(); ++i)
    xs.push_back(TensorFromArray(
        inputs[i], i < graph_inputs.size() ? "input '" + graph_inputs[i]->name() + "'" : "input " + std::to_string(i)));
  StatusOr<backend::RunResult> r = InternalError("not run");
  std::string stats, summary, table;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(s.mu);
    r = s.session->Run(xs);
    if (r.ok()) {
      s.last = r->stats;
      stats = s.session->StatsJson(r->stats);
      summary = s.session->Summary(r->stats);
      table = s.session->LayerTable(r->stats);
    }
  }
  backend::RunResult res = Unwrap(std::move(r));
  py::list outs;
  for (const ir::Tensor& t : res.outputs) outs.append(ArrayFromTensor(t));
  py::dict d;
  d["outputs"] = outs;
  d["stats_json"] = stats;
  d["counters"] = CountersDict(s.session->config(), res.stats.device);
  d["summary"] = summary;
  d["layer_table"] = table;
  return d;
}

}  // namespace

void BindModel(py::module_& m) {
  py::class_<Graph>(m, "Graph")
      .def_property_readonly("name", [](const Graph& g) { return g.graph->name(); })
      .def_property_readonly("inputs", [](const Graph& g) { return ValueList(g.graph->inputs()); })
      .def_property_readonly("outputs", [](const Graph& g) { return ValueList(g.graph->outputs()); })
      .def_readonly("quantized", &Graph::quantized)
      .def_readonly("import_seconds", &Graph::import_seconds)
      .def_readonly("pass_seconds", &Graph::pass_seconds)
      .def_readonly("quant_seconds", &Graph::quant_seconds)
      .def(
          "text",
          [](const Graph& g, bool elide) {
            ir::PrintOptions po;
            po.elide_constants = elide;
            return ir::PrintGraph(*g.graph, po);
          },
          py::arg("elide_constants") = true);
  m.def("import_graph", &ImportGraph, py::arg("source"), py::arg("name"), py::arg("base_dir"), py::arg("calib"),
        py::arg("observer"), py::arg("percentile"), py::arg("input_shapes"), py::arg("symbolic_dim_value"));

  py::class_<Model>(m, "Model")
      .def_property_readonly("name", [](const Model& x) { return x.proto->name(); })
      .def_property_readonly("config_json", [](const Model& x) { return x.proto->config_json(); })
      .def_property_readonly("isa_fingerprint", [](const Model& x) { return x.proto->isa_fingerprint(); })
      .def("steps", [](const Model& x) { return Steps(*x.proto); })
      .def("describe", [](const Model& x) { return backend::DescribeModel(*x.proto); })
      .def("to_bytes", [](const Model& x) { return py::bytes(Unwrap(backend::SerializeModel(*x.proto))); })
      .def("save", [](const Model& x, const std::string& path) { Check(backend::SaveModel(*x.proto, path)); });
  m.def("compile_graph", &CompileGraph, py::arg("graph"), py::arg("config"), py::arg("name"), py::arg("cpu_fallback"),
        py::arg("im2col_channels"));
  m.def(
      "load_model", [](const std::string& path) { return Model{Unwrap(backend::LoadModelFile(path))}; },
      py::arg("path"));
  m.def(
      "parse_model",
      [](const py::bytes& b, const std::string& source) {
        const std::string s = b;
        return Model{Unwrap(backend::ParseModel(std::vector<uint8_t>(s.begin(), s.end()), source))};
      },
      py::arg("data"), py::arg("source"));

  py::class_<Session, std::shared_ptr<Session>>(m, "Session")
      .def_property_readonly("target", [](const Session& s) { return s.session->target(); })
      .def_property_readonly("has_timing", [](const Session& s) { return s.session->has_timing(); })
      .def_property_readonly("config", [](const Session& s) { return s.session->config(); })
      .def_property_readonly("inputs", [](const Session& s) { return ValueList(s.session->graph().inputs()); })
      .def_property_readonly("outputs", [](const Session& s) { return ValueList(s.session->graph().outputs()); })
      .def("run", &RunSession, py::arg("inputs"))
      .def("trace_json", [](Session& s) {
        std::lock_guard<std::mutex> lock(s.mu);
        return Unwrap(s.session->TraceJson(s.last));
      });
  m.def("open_session", &OpenSession, py::arg("model"), py::arg("target"), py::arg("device_config"), py::arg("trace"),
        py::arg("timeout_ms"), py::arg("options"));
}

}  // namespace tessera::python
