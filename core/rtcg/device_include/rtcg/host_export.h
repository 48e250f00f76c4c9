// Host backend only: exports a kernel with a uniform entry point, so the backend can check
// and pass arguments without knowing the kernel's C++ signature.
//   rtcg_host_params_<sym>(sizes, max) -> parameter count, sizes[i] = sizeof(parameter i)
//   rtcg_host_launch_<sym>(shape, args) calls the kernel with *args[i] as parameter i
#ifndef RTCG_HOST_EXPORT_H
#define RTCG_HOST_EXPORT_H

#include <cstddef>
#include <type_traits>
#include <utility>

namespace rtcg_host {

template <class... A, std::size_t... I>
void invoke(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
  kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(args[I])...);
}

template <class... A>
void launch(void (*kernel)(A...), const rtcg_launch_shape* shape, void** args) {
  rtcg_current_launch = *shape;
  invoke(kernel, args, std::index_sequence_for<A...>{});
}

template <class... A>
int params(void (*)(A...), std::size_t* sizes, int max) {
  const std::size_t all[] = {sizeof(A)..., 0};
  const int count = static_cast<int>(sizeof...(A));
  for (int i = 0; i < count && i < max; ++i) sizes[i] = all[i];
  return count;
}

}  // namespace rtcg_host

// The host compiler builds modules with -fvisibility=hidden (host_compiler.cpp): these entry
// points are the only symbols a module exports, so a kernel named like a function of a library
// already loaded (a libc `getpid`, say) binds to the module's own definition, not to the library's.
#define RTCG_HOST_ENTRY extern "C" __attribute__((visibility("default")))

#define RTCG_HOST_EXPORT(sym, expr)                                                              \
  RTCG_HOST_ENTRY int rtcg_host_params_##sym(std::size_t* sizes, int max) {                      \
    return rtcg_host::params(expr, sizes, max);                                                   \
  }                                                                                               \
  RTCG_HOST_ENTRY void rtcg_host_launch_##sym(const rtcg_launch_shape* shape, void** args) {      \
    rtcg_host::launch(expr, shape, args);                                                          \
  }

#endif  // RTCG_HOST_EXPORT_H
