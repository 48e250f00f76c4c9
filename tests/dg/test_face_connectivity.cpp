// dg::compressed_connectivity (the face connectivity of Plan::connectivity = faces): every
// face node's vmapP comes back from its face's word and the order table, on interior, boundary
// and halo faces, and meshes it cannot compress are refused with a message.
#include "kernels/geometry_arrays.hpp"

#include "dg/error.hpp"
#include "dg/kernels.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using rtdg::dg::compressed_connectivity;
using rtdg::dg::max_face_orders;

// What the generated RTDG_VMAPP computes from the compressed array.
std::int32_t decode(const std::vector<std::int32_t>& words, int k, int f, int j, int Nfaces, int Nfp, int stride) {
  const std::int32_t w = words[static_cast<std::size_t>(max_face_orders * Nfp + k * Nfaces + f)];
  return (w / max_face_orders) * stride + words[static_cast<std::size_t>((w % max_face_orders) * Nfp + j)];
}

TEST(FaceConnectivity, DecodesEveryFaceNodeOfInteriorBoundaryAndHaloFaces) {
  // Two order-1 triangles (Np = 3, Nfp = 2, Fmask faces {0,1}, {1,2}, {2,0}) glued along face 1
  // of element 0 and face 2 of element 1 (nodes in opposite order); element 1's face 0 a halo
  // face (h = 4, the neighbour's nodes 1, 0 of its NCOMP x NFP trace, 3 components); the rest
  // boundary faces (vmapP = vmapM).
  const int K = 2, Nfaces = 3, Nfp = 2, Np = 3, components = 3;
  const std::vector<std::int32_t> bcode = {1, 0, 2,  -1, 1, 0};
  const std::vector<std::int32_t> vmapP = {0, 1,  5, 3,  2, 0,       // element 0
                                           4 * 6 + 1, 4 * 6 + 0,     // halo face 4
                                           4, 5,  2, 1};             // element 1
  const std::vector<std::int32_t> words = compressed_connectivity(vmapP, bcode, K, Nfaces, Nfp, Np, components);
  ASSERT_EQ(words.size(), static_cast<std::size_t>(max_face_orders * Nfp + K * Nfaces));
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < Nfaces; ++f) {
      const int stride = bcode[static_cast<std::size_t>(k * Nfaces + f)] == -1 ? components * Nfp : Np;
      for (int j = 0; j < Nfp; ++j)
        EXPECT_EQ(decode(words, k, f, j, Nfaces, Nfp, stride), vmapP[static_cast<std::size_t>((k * Nfaces + f) * Nfp + j)])
            << "element " << k << ", face " << f << ", node " << j;
    }
}

TEST(FaceConnectivity, RefusesWhatItCannotCompress) {
  // A face whose nodes lie on two neighbours (face 0: node 0 of element 0, node 1 of element 1).
  const std::vector<std::int32_t> bcode = {0, 0, 0};
  try {
    (void)compressed_connectivity({0, 4, 3, 4, 1, 2}, bcode, 1, 3, 2, 3, 1);
    FAIL() << "expected an error";
  } catch (const rtdg::dg::Error& error) {
    EXPECT_NE(std::string(error.what()).find("the nodes of face 0 of element 0 do not lie on one neighbour"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("use connectivity = nodes"), std::string::npos) << error.what();
  }
  // More face-node orders than the table holds: faces of 3 nodes, each another permutation of
  // 3 of the neighbour's 8 nodes (K faces of one element each, Np = 8).
  const int K = max_face_orders + 1, Nfp = 3, Np = 8;
  std::vector<std::int32_t> vmapP, codes(static_cast<std::size_t>(K), 0);
  int made = 0;
  for (int a = 0; a < Np && made < K; ++a)
    for (int b = 0; b < Np && made < K; ++b)
      for (int c = 0; c < Np && made < K; ++c) {
        if (a == b || b == c || a == c) continue;
        vmapP.insert(vmapP.end(), {a, b, c});
        ++made;
      }
  try {
    (void)compressed_connectivity(vmapP, codes, K, 1, Nfp, Np, 1);
    FAIL() << "expected an error";
  } catch (const rtdg::dg::Error& error) {
    EXPECT_NE(std::string(error.what()).find("the plan does not fit: the mesh's faces take more than 64 face-node orders"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("use connectivity = nodes"), std::string::npos) << error.what();
  }
}

}  // namespace
