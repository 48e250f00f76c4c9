// A circular dielectric cylinder (radius) centred in a square box [-box/2, box/2]^2: the 2D
// penetrable scattering test case. Physical groups: "outer" (the box sides), "dielectric"
// (the disk) and "air" (the rest of the box); the mesh conforms to the circle r = radius.
// Parameters (rtdg mesh dielectric_cylinder2d.geo -D name=value): radius, box, h (mesh size
// in the box), h_in (mesh size on and inside the cylinder), order (the geometry order: 2 to 4
// curve the elements along the circle on both sides of it, docs/curved.md).
SetFactory("OpenCASCADE");
DefineConstant[
  radius = {0.5, Name "Parameters/radius"},
  box = {3.0, Name "Parameters/box"},
  h = {0.4, Name "Parameters/h"},
  h_in = {0.15, Name "Parameters/h_in"},
  order = {1, Name "Parameters/order"}
];

Rectangle(1) = {-box / 2, -box / 2, 0, box, box};
Disk(2) = {0, 0, 0, radius};
// Fragments keeps both surfaces and makes them share the circle.
BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }

e = 1e-6 * box;
disk[] = Surface In BoundingBox{-radius - e, -radius - e, -e, radius + e, radius + e, e};
circle[] = Curve In BoundingBox{-radius - e, -radius - e, -e, radius + e, radius + e, e};
surfaces[] = Surface "*";
air[] = surfaces[];
air[] -= disk[];
outer[] = Boundary{ Surface{surfaces[]}; };
outer[] -= circle[];
MeshSize{ PointsOf{ Curve{outer[]}; } } = h;
MeshSize{ PointsOf{ Curve{circle[]}; } } = h_in;

Physical Curve("outer") = outer[];
Physical Surface("dielectric") = disk[];
Physical Surface("air") = air[];
Mesh.ElementOrder = order;
