// `rtdg info`: backends, devices, compiler identities and the cache location.
#include "rtdg/command.hpp"

#include <rtcg/backend.hpp>
#include <rtcg/cache.hpp>
#include <rtcg/compiler.hpp>

#include <nlohmann/json.hpp>

#include <iostream>

namespace {

nlohmann::json device_json(const rtcg::DeviceInfo& info) {
  return {{"name", info.name},
          {"arch", info.arch},
          {"compute_capability", std::to_string(info.compute_capability_major) + "." + std::to_string(info.compute_capability_minor)},
          {"multiprocessors", info.multiprocessors},
          {"total_memory_bytes", info.total_memory},
          {"memory_clock_khz", info.memory_clock_khz},
          {"memory_bus_width_bits", info.memory_bus_width_bits},
          {"l2_cache_bytes", info.l2_cache_bytes},
          {"max_threads_per_block", info.max_threads_per_block},
          {"max_threads_per_multiprocessor", info.max_threads_per_multiprocessor},
          {"max_shared_memory_per_block_optin", info.max_shared_memory_per_block_optin},
          {"max_shared_memory_per_multiprocessor", info.max_shared_memory_per_multiprocessor},
          {"max_blocks_per_multiprocessor", info.max_blocks_per_multiprocessor},
          {"reserved_shared_memory_per_block", info.reserved_shared_memory_per_block},
          {"registers_per_multiprocessor", info.registers_per_multiprocessor},
          {"driver_version", info.driver_version},
          {"pci_bus_id", info.pci_bus_id}};
}

nlohmann::json gather() {
  nlohmann::json info;
  info["version"] = RTDG_VERSION;
  info["components"] = {{"gmsh", RTDG_HAVE_GMSH != 0}, {"vtk", RTDG_HAVE_VTK != 0}};
  nlohmann::json cuda = {{"available", rtcg::cuda_available()}};
  if (rtcg::cuda_available()) {
    auto& backend = rtcg::backend("cuda");
    cuda["device"] = device_json(backend.device_info());
    cuda["compiler"] = backend.compiler().identity();
  } else {
    cuda["reason"] = rtcg::cuda_unavailable_reason();
    // NVRTC still compiles for a named architecture without a device.
    cuda["compiler"] = rtcg::make_nvrtc_compiler("sm_90")->identity();
  }
  info["backends"]["cuda"] = cuda;
  auto& host = rtcg::backend("host");
  info["backends"]["host"] = {{"available", true},
                              {"device", device_json(host.device_info())},
                              {"compiler", host.compiler().identity()},
                              {"target", host.compiler().target()},
                              {"options", host.compiler().base_options()}};
  info["backends"]["auto"] = rtcg::cuda_available() ? "cuda" : "host";
  const auto& config = rtcg::global_cache().config();
  info["cache"] = {{"dir", config.dir.string()},
                   {"mode", config.mode == rtcg::CacheMode::on ? "on" : config.mode == rtcg::CacheMode::off ? "off" : "readonly"},
                   {"max_bytes", config.max_bytes},
                   {"usable", rtcg::global_cache().usable()}};
  return info;
}

void print_text(const nlohmann::json& info) {
  std::cout << "rtdg " << info["version"].get<std::string>() << "\n";
  std::cout << "components: gmsh " << (info["components"]["gmsh"].get<bool>() ? "yes" : "no") << ", vtk "
            << (info["components"]["vtk"].get<bool>() ? "yes" : "no") << "\n\nbackends:\n";
  const auto& cuda = info["backends"]["cuda"];
  if (cuda["available"].get<bool>()) {
    const auto& d = cuda["device"];
    std::cout << "  cuda  " << d["name"].get<std::string>() << " (" << d["arch"].get<std::string>() << ", "
              << d["multiprocessors"] << " SMs, " << d["total_memory_bytes"].get<std::uint64_t>() / (1u << 20)
              << " MiB, L2 " << d["l2_cache_bytes"].get<int>() / 1024 << " KiB, memory bus "
              << d["memory_bus_width_bits"] << " bits at " << d["memory_clock_khz"].get<int>() / 1000 << " MHz, driver "
              << d["driver_version"] << ", PCI " << d["pci_bus_id"].get<std::string>() << ")\n";
  } else {
    std::cout << "  cuda  not usable: " << cuda["reason"].get<std::string>() << "\n";
  }
  std::cout << "        compiler: " << cuda["compiler"].get<std::string>() << "\n";
  const auto& host = info["backends"]["host"];
  std::cout << "  host  " << host["device"]["name"].get<std::string>() << " (" << host["device"]["multiprocessors"]
            << " threads)\n        compiler: " << host["compiler"].get<std::string>() << "\n        flags:";
  for (const auto& option : host["options"]) std::cout << ' ' << option.get<std::string>();
  std::cout << "\n  auto  selects " << info["backends"]["auto"].get<std::string>() << "\n\n";
  const auto& cache = info["cache"];
  std::cout << "cache: " << cache["dir"].get<std::string>() << " (mode " << cache["mode"].get<std::string>()
            << ", cap " << cache["max_bytes"].get<std::uint64_t>() / (1u << 20) << " MiB"
            << (cache["usable"].get<bool>() ? "" : ", NOT usable: compiled code is kept in memory only") << ")\n";
}

void setup(CLI::App& rtdg) {
  auto* command = rtdg.add_subcommand("info", "Backends, devices, compilers and the compile cache");
  static bool json = false;
  command->add_flag("--json", json, "Print JSON");
  command->callback([] {
    const auto info = gather();
    if (json) std::cout << info.dump(2) << "\n";
    else print_text(info);
  });
}

}  // namespace

RTDG_COMMAND(setup);
