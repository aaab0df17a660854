// TSR_CHECK: the one assert macro for broken internal invariants. It is always
// on (release builds too), prints file, line, the failed condition and a
// formatted context message, then aborts. Never use it for user input; that is
// what Status is for.
#pragma once

#include <fmt/core.h>

#include <string>

namespace tessera::internal {

[[noreturn]] void CheckFailed(const char* file, int line, const char* cond, const std::string& msg);

inline std::string CheckMessage() { return {}; }
template <typename... Args>
std::string CheckMessage(fmt::format_string<Args...> f, Args&&... args) {
  return fmt::format(f, std::forward<Args>(args)...);
}

}  // namespace tessera::internal

#define TSR_CHECK(cond, ...)                                                                                       \
  do {                                                                                                             \
    if (__builtin_expect(!(cond), 0))                                                                              \
      ::tessera::internal::CheckFailed(__FILE__, __LINE__, #cond, ::tessera::internal::CheckMessage(__VA_ARGS__)); \
  } while (0)

// Calls the [[noreturn]] handler directly, so that the compiler knows control
// never continues even without optimization (-O0 sanitizer builds).
#define TSR_UNREACHABLE(...) \
  ::tessera::internal::CheckFailed(__FILE__, __LINE__, "unreachable", ::tessera::internal::CheckMessage(__VA_ARGS__))
