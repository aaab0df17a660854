// tessera._core: the pybind11 module over the library. Python-facing classes
// (Config, Model, Result) are thin wrappers in python/tessera/ around what is
// bound here; this module holds no policy of its own.
#include <pybind11/stl.h>

#include <cstring>

#include "python/src/binding.h"

namespace tessera::python {
namespace {

struct DTypeMap {
  ir::DType dtype;
  const char* numpy;
};
constexpr DTypeMap kDTypes[] = {{ir::DType::kF32, "float32"},
                                {ir::DType::kI8, "int8"},
                                {ir::DType::kU8, "uint8"},
                                {ir::DType::kI32, "int32"},
                                {ir::DType::kI64, "int64"}};

}  // namespace

void RegisterErrors(py::module_& m) {
  // The exception class lives in tessera/errors.py (pure Python, picklable
  // across Dask workers); the translator builds it from the Status.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::object cls = py::module_::import("tessera.errors").attr("TesseraError");
      py::object exc = cls(e.status().message(), StatusCodeName(e.status().code()));
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });
  m.def("status_codes", [] {
    std::vector<std::string> names;
    for (int c = 0; c <= static_cast<int>(StatusCode::kInternal); ++c)
      names.push_back(StatusCodeName(static_cast<StatusCode>(c)));
    return names;
  });
}

ir::Tensor TensorFromArray(const py::array& a, const std::string& what) {
  for (const DTypeMap& d : kDTypes) {
    if (!a.dtype().is(py::dtype(d.numpy))) continue;
    ir::Shape shape(a.shape(), a.shape() + a.ndim());
    Check(ir::ValidateShape(shape, what));
    ir::Tensor t = ir::Tensor::Uninitialized(d.dtype, shape);
    // A C-contiguous copy of whatever layout the array has.
    py::array c = py::array::ensure(a, py::array::c_style);
    if (t.nbytes()) std::memcpy(t.raw(), c.data(), t.nbytes());
    return t;
  }
  throw StatusError(InvalidArgumentError("{}: numpy dtype {} is not supported (float32, int8, uint8, int32, int64)",
                                         what, std::string(py::str(a.dtype()))));
}

py::array ArrayFromTensor(const ir::Tensor& t) {
  for (const DTypeMap& d : kDTypes) {
    if (d.dtype != t.dtype()) continue;
    py::array a(py::dtype(d.numpy), std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
    if (t.nbytes()) std::memcpy(a.mutable_data(), t.raw(), t.nbytes());
    return a;
  }
  throw StatusError(InternalError("tensor of unknown dtype"));
}

}  // namespace tessera::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "Tessera's C++ library (the tessera package wraps it; see docs/python.md)";
  tessera::python::RegisterErrors(m);
  tessera::python::BindConfig(m);
  tessera::python::BindModel(m);
}
