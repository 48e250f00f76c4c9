// Channel [0, length] x [0, width] for quasi-1D problems (shock tubes): a structured mesh of
// squares split into two triangles each.
// Physical groups: "domain"; "xmin", "xmax" (the ends); "walls" (y = 0 and y = width).
// Parameters (rtdg mesh channel.geo -D name=value): length, width, nx (squares along x), ny.
DefineConstant[
  length = {1.0, Name "Parameters/length"},
  width = {0.02, Name "Parameters/width"},
  nx = {50, Name "Parameters/nx"},
  ny = {1, Name "Parameters/ny"}
];

Point(1) = {0, 0, 0};
Point(2) = {length, 0, 0};
Point(3) = {length, width, 0};
Point(4) = {0, width, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = nx + 1;
Transfinite Curve{2, 4} = ny + 1;
Transfinite Surface{1};

Physical Curve("xmin") = {4};
Physical Curve("xmax") = {2};
Physical Curve("walls") = {1, 3};
Physical Surface("domain") = {1};
