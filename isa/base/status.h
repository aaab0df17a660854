// Status and StatusOr<T>: the error channel for everything a user or an input
// can cause. Messages name the culprit (file, key, node, instruction index).
// Broken internal invariants use TSR_CHECK (isa/base/check.h) instead.
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "isa/base/check.h"

namespace tessera {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // malformed input: bad config, bad program, bad model
  kNotFound,            // missing file, key, symbol
  kOutOfRange,          // an access outside a buffer or memory
  kFailedPrecondition,  // state does not allow the operation (e.g. config mismatch)
  kResourceExhausted,   // something does not fit (scratchpad, queue, limit)
  kDeadlineExceeded,    // timeout, watchdog
  kAborted,             // deadlock, race
  kUnimplemented,       // unsupported op or feature (named in the message)
  kDataLoss,            // corrupted file
  kInternal,
};

const char* StatusCodeName(StatusCode code);

// A device fault carried as data on the Status that reports it: the
// ERROR_CODE value (isa/regs.def, typed helpers in isa/regs.h) and the index
// of the faulting instruction in its stream (kNoInsn: none). Engines attach
// it where the fault arises; nothing recovers it from message text.
struct Fault {
  static constexpr uint32_t kNoInsn = 0xFFFFFFFFu;
  uint32_t code = 0;
  uint32_t insn = kNoInsn;
  bool operator==(const Fault& o) const { return code == o.code && insn == o.insn; }
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>"
  std::string ToString() const;
  // Prepends context: "while loading x.json: <message>". Keeps the fault.
  Status WithContext(const std::string& context) const;
  // The same error with fault data attached (replacing any).
  Status WithFault(Fault f) const;
  const std::optional<Fault>& fault() const { return fault_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::optional<Fault> fault_;
};

inline Status OkStatus() { return Status(); }

#define TSR_DEFINE_ERROR_FN(Name, Code)                                           \
  template <typename... Args>                                                     \
  Status Name(fmt::format_string<Args...> f, Args&&... args) {                    \
    return Status(StatusCode::Code, fmt::format(f, std::forward<Args>(args)...)); \
  }
TSR_DEFINE_ERROR_FN(InvalidArgumentError, kInvalidArgument)
TSR_DEFINE_ERROR_FN(NotFoundError, kNotFound)
TSR_DEFINE_ERROR_FN(OutOfRangeError, kOutOfRange)
TSR_DEFINE_ERROR_FN(FailedPreconditionError, kFailedPrecondition)
TSR_DEFINE_ERROR_FN(ResourceExhaustedError, kResourceExhausted)
TSR_DEFINE_ERROR_FN(DeadlineExceededError, kDeadlineExceeded)
TSR_DEFINE_ERROR_FN(AbortedError, kAborted)
TSR_DEFINE_ERROR_FN(UnimplementedError, kUnimplemented)
TSR_DEFINE_ERROR_FN(DataLossError, kDataLoss)
TSR_DEFINE_ERROR_FN(InternalError, kInternal)
#undef TSR_DEFINE_ERROR_FN

// Holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit by design
    TSR_CHECK(!status_.ok(), "StatusOr constructed from an OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    TSR_CHECK(ok(), "value() on error: {}", status_.ToString());
    return *value_;
  }
  const T& value() const& {
    TSR_CHECK(ok(), "value() on error: {}", status_.ToString());
    return *value_;
  }
  T&& value() && {
    TSR_CHECK(ok(), "value() on error: {}", status_.ToString());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tessera

#define TSR_STATUS_CONCAT_INNER(a, b) a##b
#define TSR_STATUS_CONCAT(a, b) TSR_STATUS_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` yields a non-OK Status.
#define TSR_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::tessera::Status tsr_status_ = (expr);    \
    if (!tsr_status_.ok()) return tsr_status_; \
  } while (0)

// `TSR_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a StatusOr or returns its error.
#define TSR_ASSIGN_OR_RETURN(lhs, expr) TSR_ASSIGN_OR_RETURN_IMPL(TSR_STATUS_CONCAT(tsr_statusor_, __LINE__), lhs, expr)
#define TSR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
