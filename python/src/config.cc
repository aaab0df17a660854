// Config and backend-registry bindings: a validated HwConfig (from a file or
// JSON text; Python's Config.with_changes edits the canonical JSON and parses
// it again, so every key and limit is checked by isa/config.cc) and the rows
// of driver/registry.h.
#include "isa/config.h"

#include <pybind11/stl.h>

#include "driver/registry.h"
#include "python/src/binding.h"

namespace tessera::python {
namespace {

const char* OptionTypeName(BackendOptionType t) {
  switch (t) {
    case BackendOptionType::kFlag: return "flag";
    case BackendOptionType::kInt: return "int";
    case BackendOptionType::kString: return "string";
  }
  return "?";
}

py::list Targets() {
  py::list rows;
  for (const BackendInfo& b : Backends()) {
    py::list options;
    for (const BackendOption& o : b.options) {
      py::dict d;
      d["name"] = o.name;
      d["type"] = OptionTypeName(o.type);
      d["help"] = o.help;
      options.append(d);
    }
    py::dict row;
    row["name"] = b.name;
    row["description"] = b.description;
    row["has_timing"] = b.has_timing;
    row["is_device"] = b.is_device();
    row["built"] = b.built();
    row["enable"] = b.enable;
    row["options"] = options;
    rows.append(row);
  }
  return rows;
}

// The rows of isa/config.def: every parameter's key, kind, range, unit and effect.
py::list Params() {
  py::list rows;
  for (const ParamInfo& p : kParams) {
    py::dict d;
    d["key"] = std::string(p.key);
    d["kind"] = p.kind == ParamKind::kReal ? "real" : p.kind == ParamKind::kPow2 ? "pow2" : "int";
    d["lo"] = p.lo;
    d["hi"] = p.hi;
    d["multiple_of"] = p.multiple_of;
    d["unit"] = std::string(p.unit);
    d["effect"] = p.effect == ParamEffect::kBehaviour ? "behaviour" : "timing";
    d["summary"] = std::string(p.summary);
    rows.append(d);
  }
  return rows;
}

// A config's parameter values by key, read through the table.
py::dict Values(const HwConfig& c) {
  py::dict d;
  for (const ParamInfo& p : kParams) {
    const double v = p.get(c);
    if (p.kind == ParamKind::kReal) {
      d[py::str(std::string(p.key))] = v;
    } else {
      d[py::str(std::string(p.key))] = static_cast<int64_t>(v);
    }
  }
  return d;
}

}  // namespace

void BindConfig(py::module_& m) {
  py::class_<HwConfig>(m, "HwConfig")
      .def_readonly("name", &HwConfig::name)
      .def_readonly("description", &HwConfig::description)
      .def_readonly("clock_mhz", &HwConfig::clock_mhz)
      .def_readonly("macs_per_cycle", &HwConfig::macs_per_cycle)
      .def_readonly("isa_fingerprint", &HwConfig::isa_fingerprint)
      .def("values", &Values)
      .def("to_json", &HwConfigToJson)
      .def("describe", &DescribeHwConfig);
  m.def(
      "load_config", [](const std::string& path) { return Unwrap(LoadHwConfig(path)); }, py::arg("path"));
  m.def(
      "parse_config",
      [](const std::string& text, const std::string& source) { return Unwrap(ParseHwConfig(text, source)); },
      py::arg("text"), py::arg("source"));
  m.def("params", &Params, "The config parameters (isa/config.def)");
  m.def(
      "is_param", [](const std::string& key) { return FindParam(key) != nullptr; }, py::arg("key"));
  m.def("targets", &Targets, "The backend registry's rows (driver/registry.h), built targets first");
  m.def(
      "find_target",
      [](const std::string& name) {
        Unwrap(FindBackend(name));
        return name;
      },
      py::arg("name"), "Checks that the build has target `name` (the error lists those it has)");
}

}  // namespace tessera::python
