// The reference element shapes and their node counts, in Hesthaven & Warburton's coordinates:
//   interval     r in [-1, 1]; vertices -1, 1 (used by tests and as the face of a triangle)
//   triangle     vertices (-1,-1), (1,-1), (-1,1)
//   tetrahedron  vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1)
#pragma once

#include <string_view>

namespace rtdg::dg {

enum class Shape { interval, triangle, tetrahedron };

// Spatial dimension: 1, 2 or 3.
int dimension(Shape shape);
// Nfaces: 2, 3 or 4.
int num_faces(Shape shape);
// Np: nodes of a complete polynomial space of degree N ((N+1), (N+1)(N+2)/2, (N+1)(N+2)(N+3)/6).
int num_nodes(Shape shape, int N);
// Nfp: nodes on one face (the Np of the shape one dimension lower; 1 for the interval).
int num_face_nodes(Shape shape, int N);
// The shape one dimension lower that its faces are (the interval's faces are points: not valid).
Shape face_shape(Shape shape);

// "interval", "triangle", "tetrahedron".
std::string_view shape_name(Shape shape);
// Inverse of shape_name; throws dg::Error naming the valid shapes.
Shape parse_shape(std::string_view name);

}  // namespace rtdg::dg
