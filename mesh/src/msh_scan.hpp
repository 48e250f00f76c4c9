// A bounded look at a .msh file before Gmsh reads it (private to the mesh module). Gmsh sizes
// its arrays by the counts a file declares and reads numbers leniently (`$Nodes 1e12` reads as
// 1 node and fails later on "Wrong node index 1"), so a damaged or hostile file could ask for
// terabytes or give a message about the wrong line. This reads the format line and the count
// line of each $Nodes, $Elements, $PhysicalNames and $Entities section, a few kilobytes at a
// time, and refuses counts that are not whole numbers or that the file is too short to hold.
#pragma once

#include <cstdint>
#include <filesystem>

namespace rtdg::mesh::detail {

// Bytes the smallest entry of a section takes in any MSH flavour ("1 0 0 0\n" is a node line
// of 8 bytes; a binary element is at least one 4-byte tag): a count above size / this is one
// the file cannot hold.
inline constexpr std::uintmax_t kMshMinimumEntryBytes = 4;

// Throws MeshError("<file>:<line>:<column>: ...") (or "<file>: ..." where no line applies)
// unless the file starts with a $MeshFormat section of version 2, 3 or 4 and its $Nodes,
// $Elements, $PhysicalNames and (MSH 4) $Entities sections declare counts that are whole
// numbers within what the file's size can hold. Reads the file up to its $Elements section.
void scan_msh(const std::filesystem::path& file);

}  // namespace rtdg::mesh::detail
