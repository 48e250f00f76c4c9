// A circular cylinder (radius) centred in a square box [-box/2, box/2]^2: the 2D scattering
// test case. Physical groups: "pec" (the cylinder's boundary), "outer" (the box sides),
// "domain" (the surface between them).
// Parameters (rtdg mesh cylinder2d.geo -D name=value): radius, box, h (mesh size in the box),
// h_pec (mesh size on the cylinder), order (geometry order of the elements: 1 straight-sided, 2 to
// 5 curved along the cylinder; docs/curved.md).
SetFactory("OpenCASCADE");
DefineConstant[
  radius = {0.5, Name "Parameters/radius"},
  box = {3.0, Name "Parameters/box"},
  h = {0.4, Name "Parameters/h"},
  h_pec = {0.2, Name "Parameters/h_pec"},
  order = {1, Name "Parameters/order"}
];

Rectangle(1) = {-box / 2, -box / 2, 0, box, box};
Disk(2) = {0, 0, 0, radius};
BooleanDifference{ Surface{1}; Delete; }{ Surface{2}; Delete; }

e = 1e-6 * box;
pec[] = Curve In BoundingBox{-radius - e, -radius - e, -e, radius + e, radius + e, e};
all[] = Boundary{ Surface{1}; };
outer[] = all[];
outer[] -= pec[];
MeshSize{ PointsOf{ Curve{outer[]}; } } = h;
MeshSize{ PointsOf{ Curve{pec[]}; } } = h_pec;

Physical Curve("pec") = pec[];
Physical Curve("outer") = outer[];
Physical Surface("domain") = {1};
Mesh.ElementOrder = order;
