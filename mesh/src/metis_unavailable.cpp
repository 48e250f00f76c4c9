// Built instead of metis_kway.cpp when METIS is absent (RTDG_HAVE_METIS=0).
#include "metis_kway.hpp"

#include "text.hpp"

#include <string>

namespace rtdg::mesh::detail {

std::vector<int> metis_kway(const DualGraph&, const std::vector<int>&, int parts, int, double,
                            std::string_view source) {
  fail(source, "partitioning into " + std::to_string(parts) +
                   " parts needs METIS, and this rtdg was built without it; install libmetis-dev and "
                   "reconfigure (RTDG_WITH_METIS), or store the partition in the .h5 mesh with an rtdg that has "
                   "METIS (rtdg mesh mesh.h5 --partitions " + std::to_string(parts) + " -o mesh.h5)");
}

}  // namespace rtdg::mesh::detail
