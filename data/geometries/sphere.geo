// A sphere (radius) centred in a cubic box [-box/2, box/2]^3: the 3D scattering test case.
// Physical groups: "pec" (the sphere's surface), "outer" (the box faces), "domain" (the volume
// between them).
// Parameters (rtdg mesh sphere.geo -D name=value): radius, box, h (mesh size in the box),
// h_pec (mesh size on the sphere). The defaults give about a thousand tetrahedra.
SetFactory("OpenCASCADE");
DefineConstant[
  radius = {0.5, Name "Parameters/radius"},
  box = {2.0, Name "Parameters/box"},
  h = {0.45, Name "Parameters/h"},
  h_pec = {0.25, Name "Parameters/h_pec"}
];

Box(1) = {-box / 2, -box / 2, -box / 2, box, box, box};
Sphere(2) = {0, 0, 0, radius};
BooleanDifference{ Volume{1}; Delete; }{ Volume{2}; Delete; }

e = 1e-6 * box;
pec[] = Surface In BoundingBox{-radius - e, -radius - e, -radius - e, radius + e, radius + e, radius + e};
all[] = Boundary{ Volume{1}; };
outer[] = all[];
outer[] -= pec[];
MeshSize{ PointsOf{ Volume{1}; } } = h;
MeshSize{ PointsOf{ Surface{pec[]}; } } = h_pec;

Physical Surface("pec") = pec[];
Physical Surface("outer") = outer[];
Physical Volume("domain") = {1};
