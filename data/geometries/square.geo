// Square cavity [0, size] x [0, size]: perfectly conducting walls, or periodic in x and/or y.
// Physical groups: "domain" (the surface); "walls" (the sides that are not periodic);
// "xmin"/"xmax" when periodic_x = 1, "ymin"/"ymax" when periodic_y = 1 (x_max = x_min + size).
// Parameters (rtdg mesh square.geo -D name=value): size, h (mesh size), periodic_x, periodic_y.
DefineConstant[
  size = {1.0, Name "Parameters/size"},
  h = {0.25, Name "Parameters/h"},
  periodic_x = {0, Choices{0, 1}, Name "Parameters/periodic_x"},
  periodic_y = {0, Choices{0, 1}, Name "Parameters/periodic_y"}
];

Point(1) = {0, 0, 0, h};
Point(2) = {size, 0, 0, h};
Point(3) = {size, size, 0, h};
Point(4) = {0, size, 0, h};
Line(1) = {1, 2};  // y = 0
Line(2) = {2, 3};  // x = size
Line(3) = {3, 4};  // y = size
Line(4) = {4, 1};  // x = 0
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};

walls[] = {};
If (periodic_x)
  // Curve 4 runs downwards, so it maps onto curve 2 reversed.
  Periodic Curve{2} = {-4} Translate{size, 0, 0};
  Physical Curve("xmin") = {4};
  Physical Curve("xmax") = {2};
Else
  walls[] += {2, 4};
EndIf
If (periodic_y)
  Periodic Curve{3} = {-1} Translate{0, size, 0};
  Physical Curve("ymin") = {1};
  Physical Curve("ymax") = {3};
Else
  walls[] += {1, 3};
EndIf
If (#walls[] > 0)
  Physical Curve("walls") = walls[];
EndIf
Physical Surface("domain") = {1};
