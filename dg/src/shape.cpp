#include "dg/shape.hpp"

#include "dg/error.hpp"

#include <string>

namespace rtdg::dg {

int dimension(Shape shape) {
  switch (shape) {
    case Shape::interval: return 1;
    case Shape::triangle: return 2;
    case Shape::tetrahedron: return 3;
  }
  throw Error("dg: unknown element shape");
}

int num_faces(Shape shape) { return dimension(shape) + 1; }

int num_nodes(Shape shape, int N) {
  switch (shape) {
    case Shape::interval: return N + 1;
    case Shape::triangle: return (N + 1) * (N + 2) / 2;
    case Shape::tetrahedron: return (N + 1) * (N + 2) * (N + 3) / 6;
  }
  throw Error("dg: unknown element shape");
}

int num_face_nodes(Shape shape, int N) {
  return shape == Shape::interval ? 1 : num_nodes(face_shape(shape), N);
}

Shape face_shape(Shape shape) {
  switch (shape) {
    case Shape::triangle: return Shape::interval;
    case Shape::tetrahedron: return Shape::triangle;
    case Shape::interval: break;
  }
  throw Error("dg: the faces of an interval are points, not a reference element");
}

std::string_view shape_name(Shape shape) {
  switch (shape) {
    case Shape::interval: return "interval";
    case Shape::triangle: return "triangle";
    case Shape::tetrahedron: return "tetrahedron";
  }
  throw Error("dg: unknown element shape");
}

Shape parse_shape(std::string_view name) {
  for (Shape shape : {Shape::interval, Shape::triangle, Shape::tetrahedron}) {
    if (name == shape_name(shape)) return shape;
  }
  throw Error("dg: unknown element shape '" + std::string(name) +
              "'; valid shapes are interval, triangle, tetrahedron");
}

}  // namespace rtdg::dg
