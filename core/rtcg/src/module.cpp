#include <rtcg/module.hpp>

#include <sstream>

namespace rtcg {

std::vector<void*> KernelArgs::pointers() {
  std::vector<void*> result;
  result.reserve(slots_.size());
  for (auto& slot : slots_) result.push_back(slot.data());
  return result;
}

namespace {
std::string describe_parameter(const Kernel& kernel, std::size_t i) {
  std::string text = "parameter " + std::to_string(i);
  if (i < kernel.parameter_names().size() && !kernel.parameter_names()[i].empty())
    text += " (`" + kernel.parameter_names()[i] + "`)";
  return text;
}
}  // namespace

void Kernel::check_arguments(const KernelArgs& args) const {
  const auto& sizes = parameter_sizes();
  if (args.size() != sizes.size()) {
    std::ostringstream message;
    message << "kernel `" << name() << "` takes " << sizes.size() << " argument" << (sizes.size() == 1 ? "" : "s")
            << " but the launch passed " << args.size();
    if (args.size() < sizes.size()) message << "; missing " << describe_parameter(*this, args.size());
    else message << "; the first extra one is argument " << sizes.size();
    throw LaunchError(message.str());
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (args.size_of(i) != sizes[i]) {
      std::ostringstream message;
      message << "kernel `" << name() << "`: " << describe_parameter(*this, i) << " is " << sizes[i]
              << " bytes but the argument passed is " << args.size_of(i)
              << " bytes (e.g. a double passed for a float, or an int for a long)";
      throw LaunchError(message.str());
    }
  }
}

void Kernel::launch(const LaunchShape& shape, KernelArgs args) const {
  check_arguments(args);
  if (shape.grid.x == 0 || shape.grid.y == 0 || shape.grid.z == 0 || shape.block.x == 0 || shape.block.y == 0 ||
      shape.block.z == 0)
    throw LaunchError("kernel `" + name() + "`: a launch needs every grid and block dimension >= 1");
  launch_checked(shape, args);
}

const std::string& Module::lowered_name(const std::string& expression) const {
  auto it = binary_.lowered_names.find(expression);
  if (it == binary_.lowered_names.end())
    throw Error("no name expression `" + expression + "` was given when this module was compiled");
  return it->second;
}

}  // namespace rtcg
