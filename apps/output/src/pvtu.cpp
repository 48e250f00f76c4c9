// write_pvtu (output/vtu.hpp): the parallel VTU index, as VTK's XML format describes it
// (VTKFile type "PUnstructuredGrid": the arrays' names, types and component counts, then one
// Piece per file).
#include "output/vtu.hpp"

#include "support.hpp"

#include <sstream>

namespace rtdg::output {

void write_pvtu(const std::filesystem::path& file, const std::vector<std::filesystem::path>& pieces,
                const std::vector<std::string>& names, int dim, const std::string& precision) {
  const std::string source = file.string();
  if (precision != "float" && precision != "double")
    detail::fail(source, "precision must be \"float\" or \"double\", got \"" + precision + "\"");
  if (pieces.empty()) detail::fail(source, "a parallel VTU needs at least one piece");
  const std::string type = precision == "float" ? "Float32" : "Float64";
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      << "  <PUnstructuredGrid GhostLevel=\"0\">\n"
      << "    <PPointData>\n";
  for (const PointArray& array : point_arrays(names, dim)) {
    if (array.name.find_first_of("\"<>&") != std::string::npos)
      detail::fail(source, "the array name '" + array.name + "' has a character XML would need escaped");
    xml << "      <PDataArray type=\"" << type << "\" Name=\"" << array.name << "\" NumberOfComponents=\""
        << array.components.size() << "\"/>\n";
  }
  xml << "    </PPointData>\n"
      << "    <PPoints>\n"
      << "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n"
      << "    </PPoints>\n";
  for (const std::filesystem::path& piece : pieces) {
    const std::string text = piece.generic_string();
    if (text.find_first_of("\"<>&") != std::string::npos)
      detail::fail(source, "the piece name '" + text + "' has a character XML would need escaped");
    xml << "    <Piece Source=\"" << text << "\"/>\n";
  }
  xml << "  </PUnstructuredGrid>\n"
      << "</VTKFile>\n";
  detail::write_file_atomically(file, xml.str());
}

}  // namespace rtdg::output
