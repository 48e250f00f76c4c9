// Cube cavity [0, size]^3: perfectly conducting walls, or periodic in x, y and/or z.
// Physical groups: "domain" (the volume); "walls" (the faces that are not periodic);
// "xmin"/"xmax" when periodic_x = 1, likewise for y and z (x_max = x_min + size).
// Parameters (rtdg mesh cube.geo -D name=value): size, h (mesh size), periodic_x, periodic_y,
// periodic_z.
SetFactory("OpenCASCADE");
DefineConstant[
  size = {1.0, Name "Parameters/size"},
  h = {0.5, Name "Parameters/h"},
  periodic_x = {0, Choices{0, 1}, Name "Parameters/periodic_x"},
  periodic_y = {0, Choices{0, 1}, Name "Parameters/periodic_y"},
  periodic_z = {0, Choices{0, 1}, Name "Parameters/periodic_z"}
];

Box(1) = {0, 0, 0, size, size, size};
MeshSize{ PointsOf{ Volume{1}; } } = h;

// The faces at the low and high end of each axis, found by bounding box.
e = 1e-6 * size;
xmin = Surface In BoundingBox{-e, -e, -e, e, size + e, size + e};
xmax = Surface In BoundingBox{size - e, -e, -e, size + e, size + e, size + e};
ymin = Surface In BoundingBox{-e, -e, -e, size + e, e, size + e};
ymax = Surface In BoundingBox{-e, size - e, -e, size + e, size + e, size + e};
zmin = Surface In BoundingBox{-e, -e, -e, size + e, size + e, e};
zmax = Surface In BoundingBox{-e, -e, size - e, size + e, size + e, size + e};

walls[] = {};
If (periodic_x)
  Periodic Surface{xmax} = {xmin} Translate{size, 0, 0};
  Physical Surface("xmin") = {xmin};
  Physical Surface("xmax") = {xmax};
Else
  walls[] += {xmin, xmax};
EndIf
If (periodic_y)
  Periodic Surface{ymax} = {ymin} Translate{0, size, 0};
  Physical Surface("ymin") = {ymin};
  Physical Surface("ymax") = {ymax};
Else
  walls[] += {ymin, ymax};
EndIf
If (periodic_z)
  Periodic Surface{zmax} = {zmin} Translate{0, 0, size};
  Physical Surface("zmin") = {zmin};
  Physical Surface("zmax") = {zmax};
Else
  walls[] += {zmin, zmax};
EndIf
If (#walls[] > 0)
  Physical Surface("walls") = walls[];
EndIf
Physical Volume("domain") = {1};
