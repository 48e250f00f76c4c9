// Reading a whole text input (a law file, a run config) without trusting what the path names:
// only a regular file is read (a FIFO would block and a device such as /dev/zero never ends),
// and only up to a size limit, so a wrong path gives a message instead of a hang or a process
// the kernel kills for its memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace fluxes {

// Configs and law files are kilobytes; 8 MB is far past any real one.
inline constexpr std::uintmax_t kTextFileLimit = 8u << 20;

struct TextFile {
  std::string text;
  // Empty when read; else what is wrong, to follow the file's name: "not found", "is a folder,
  // not a <kind>", "is not a regular file (...)", "is 9437184 bytes, more than ...", "cannot
  // read the <kind>: Permission denied".
  std::string problem;
  bool ok() const { return problem.empty(); }
};

// `kind` names the file in messages, e.g. "config file", "law file".
TextFile read_text_file(const std::filesystem::path& file, std::string_view kind, std::uintmax_t limit = kTextFileLimit);

}  // namespace fluxes
