// Shared pieces of the Python binding (_core): the Status -> exception
// bridge and numpy <-> ir::Tensor conversion. Every library call that can
// fail goes through Unwrap/Check, so a Status becomes tessera.TesseraError
// with the library's message and code; nothing aborts the interpreter.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <utility>

#include "compiler/ir/tensor.h"
#include "compiler/ir/type.h"
#include "isa/base/status.h"

namespace tessera::python {

namespace py = pybind11;

// Thrown by Check/Unwrap; translated to tessera.errors.TesseraError.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status s) : std::runtime_error(s.message()), status_(std::move(s)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

inline void Check(const Status& s) {
  if (!s.ok()) throw StatusError(s);
}
template <typename T>
T Unwrap(StatusOr<T> v) {
  if (!v.ok()) throw StatusError(v.status());
  return std::move(*v);
}

// Registers the translator (module init).
void RegisterErrors(py::module_& m);

// A numpy array of a supported element type (float32, int8, uint8, int32,
// int64) copied into a C-order tensor; `what` names it in errors.
ir::Tensor TensorFromArray(const py::array& a, const std::string& what);
py::array ArrayFromTensor(const ir::Tensor& t);

void BindConfig(py::module_& m);
void BindModel(py::module_& m);

}  // namespace tessera::python
