// Atomic publication of an output file (private to the mesh module): write to a temporary
// file next to the target, fsync it, rename it into place. A reader never sees a half-written
// mesh; on failure the temporary file is removed and the target is untouched.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace rtdg::mesh::detail {

// Calls write(temporary) where temporary is in the target's folder and ends with `suffix`
// (Gmsh picks the format from the extension), then renames it to `target`.
void publish_atomically(const std::filesystem::path& target, const std::string& suffix,
                        const std::function<void(const std::filesystem::path&)>& write);

}  // namespace rtdg::mesh::detail
