#include "array/generator_support.hpp"

#include <sstream>

namespace rtcg::detail {

void write_comment(SourceWriter& writer, std::string_view label, std::string_view text) {
  std::istringstream lines{std::string(text)};
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    writer.line((first ? "// " + std::string(label) + ": " : "//   ") + line);
    first = false;
  }
  if (first) writer.line("// " + std::string(label) + ": (none)");
}

void write_math_include(SourceWriter& writer) {
  writer.line("#if RTCG_HOST");
  writer.line("#include <math.h>");
  writer.line("#endif");
}

void write_preamble(SourceWriter& writer, std::string_view preamble) {
  if (preamble.empty()) return;
  writer.line("// --- preamble (user code) ---");
  std::istringstream lines{std::string(preamble)};
  for (std::string line; std::getline(lines, line);) writer.line(line);
  writer.line("// --- end of preamble ---");
}

std::string kernel_header(std::string_view name, const std::vector<ArgumentDecl>& arguments, bool restrict_pointers,
                          const std::vector<std::string>& extra_parameters) {
  std::string header = "RTCG_KERNEL(" + std::string(name) + ")(";
  bool first = true;
  auto add = [&](const std::string& parameter) {
    if (!first) header += ", ";
    header += parameter;
    first = false;
  };
  for (const auto& argument : arguments) {
    if (argument.pointer && restrict_pointers) {
      add(std::string(argument.is_const ? "const " : "") + c_type(argument.type) + "* RTCG_RESTRICT " + argument.name);
    } else {
      add(argument.declaration());
    }
  }
  for (const auto& parameter : extra_parameters) add(parameter);
  return header + ")";
}

std::string literal(unsigned long long value) { return std::to_string(value); }

}  // namespace rtcg::detail
