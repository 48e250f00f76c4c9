// Compiles and runs a generated kernel on the host backend through the installed rtcg.
#include <rtcg/backend.hpp>

#include <cstdio>
#include <vector>

int main() {
  rtcg::Program program;
  program.name = "consumer_square";
  program.source = "RTCG_KERNEL(square)(int* v, long long n) { RTCG_GLOBAL_LOOP(i, n) { v[i] = v[i] * v[i]; } }\n";
  auto& backend = rtcg::backend("host");
  auto kernel = backend.compile(program)->kernel("square");
  std::vector<int> values = {1, 2, 3, 4};
  void* device = backend.allocate(sizeof(int) * values.size());
  backend.copy_to_device(device, values.data(), sizeof(int) * values.size());
  (*kernel)(rtcg::LaunchShape{}, device, static_cast<long long>(values.size()));
  backend.copy_to_host(values.data(), device, sizeof(int) * values.size());
  backend.deallocate(device);
  std::printf("%d %d %d %d\n", values[0], values[1], values[2], values[3]);
  return values == std::vector<int>{1, 4, 9, 16} ? 0 : 1;
}
